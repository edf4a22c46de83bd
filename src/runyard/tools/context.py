"""``ToolContext``: what a tool may know about the call it serves."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ProgressCallback", "ToolContext"]

ProgressCallback = Callable[[Any], None]


def _ignore_progress(_: Any) -> None:
    return None


@dataclass(slots=True)
class ToolContext:
    """Injected into a tool whose function has a parameter annotated ``ToolContext``.

    ``idempotency_key`` is stable across suspend/resume and process restarts, so a tool with
    external effects can deduplicate them (DESIGN.md §8).
    """

    run_id: str
    tool_call_id: str
    tool_name: str
    resume_data: Any = None
    thread_id: str | None = None
    resource_id: str | None = None
    tenant_id: str | None = None
    abort_signal: asyncio.Event = field(default_factory=asyncio.Event)
    on_progress: ProgressCallback = _ignore_progress
    deps: dict[str, Any] = field(default_factory=dict)

    @property
    def idempotency_key(self) -> str:
        return f"{self.run_id}:{self.tool_call_id}"

    @property
    def aborted(self) -> bool:
        return self.abort_signal.is_set()

    def progress(self, data: Any) -> None:
        """Report progress (a message or any JSON-able value); it reaches stream consumers."""
        self.on_progress(data)
