"""``ToolContext``: what a tool may know about the call it serves, and its typed event channel."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runyard.telemetry import NO_TELEMETRY, Telemetry

__all__ = ["ToolContext", "ToolEvent", "ToolEventSink", "ToolProgress"]


class ToolEvent:
    """The base of the typed events a tool sends into its run's stream (``ToolContext.emit``).

    Subclass it with the fields the event carries, typically as a frozen dataclass. The runtime
    passes each event on, in stream order, as a ``tool-event`` chunk naming the call; what an
    event means is up to whoever reads the stream (the service turns its own into wire events).
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ToolProgress(ToolEvent):
    """A short progress message: what ``ToolContext.progress`` sends."""

    message: str


ToolEventSink = Callable[[ToolEvent], None]


def _ignore_event(_: ToolEvent) -> None:
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
    on_event: ToolEventSink = _ignore_event
    deps: dict[str, Any] = field(default_factory=dict)
    telemetry: Telemetry = NO_TELEMETRY
    """This call's span: pass it as ``telemetry=`` to a sub-agent's run to nest its spans here."""

    @property
    def idempotency_key(self) -> str:
        return f"{self.run_id}:{self.tool_call_id}"

    @property
    def aborted(self) -> bool:
        return self.abort_signal.is_set()

    def emit(self, event: ToolEvent) -> None:
        """Send ``event`` into the run's stream now, in order with the run's other chunks.

        Anything but a ``ToolEvent`` is a mistake in the tool and raises ``TypeError`` here, where
        it was made, rather than being lost further down the stream.
        """
        if not isinstance(event, ToolEvent):
            raise TypeError(f"ToolContext.emit takes a ToolEvent, not {type(event).__name__}")
        self.on_event(event)

    def progress(self, message: str) -> None:
        """Report progress as a short message (a ``ToolProgress`` event)."""
        self.emit(ToolProgress(message))
