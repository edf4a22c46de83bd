"""``Suspend``: the value a tool returns to pause its run until someone answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Suspend"]


@dataclass(frozen=True, slots=True)
class Suspend:
    """Return ``Suspend(payload)`` from a tool to suspend the run.

    The payload is shown to whoever resumes (validated against the tool's ``suspend_schema``
    when it has one). The run resumes with ``agent.resume(..., data)``; the tool is then called
    again with ``ctx.resume_data = data`` (validated against its ``resume_schema``).
    """

    payload: Any = None
