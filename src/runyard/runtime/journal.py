"""``RunJournal``: where a run makes every step durable, so it can be carried on after a crash.

The loop records a progress checkpoint after each model response that calls tools (the run's
state, status ``running``, the calls pending), a ``started`` row for a window's calls before
they run, and each call's outcome as it settles. A process that takes the run over after its
owner died hands the last checkpoint and the rows to ``AgentRuntime.recover``: settled calls are
replayed, never run again; a call that started but never settled runs again only when its tool
is ``retry_safe``, else it settles as an error saying its effect is unverified; a model call that
was in flight is simply made again.

The journal is a seam: the service's writes are fenced by the run's lease, so an owner that was
superseded writes nothing (it raises, and the run stops). ``InMemoryRunJournal`` is for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runyard.runtime.state import AgentState

__all__ = ["INTERRUPTED_TOOL_ERROR", "InMemoryRunJournal", "JournalCall", "RunJournal"]

INTERRUPTED_TOOL_ERROR = (
    "Tool {name} was interrupted: the server running it stopped before it returned, so whether "
    "it took effect is unverified. Check before calling it again."
)
"""What the model reads for a call in flight at a crash whose tool is not ``retry_safe``."""


@dataclass(frozen=True, slots=True)
class JournalCall:
    """One tool call as the journal holds it: ``settled`` with its output, or only started."""

    tool_call_id: str
    tool_name: str
    settled: bool
    output: Any = None
    is_error: bool = False


class RunJournal(Protocol):
    """Makes a run's steps durable; every call returns once what it was given is stored — or,
    for calls that only settled, once they are sure to be stored before anything the run says
    after them is seen (the service writes them with its next events)."""

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        """Store ``calls`` (a started row never replaces a settled one) and, when given,
        ``state`` as the run's progress checkpoint (replacing the previous one)."""
        ...


class InMemoryRunJournal:
    """A journal in this process's memory: what a takeover would read, for tests."""

    def __init__(self) -> None:
        self.state: AgentState | None = None
        self.calls: dict[str, JournalCall] = {}
        self.writes = 0

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        self.writes += 1
        if state is not None:
            self.state = state.model_copy(deep=True)
        for call in calls:
            if call.settled or call.tool_call_id not in self.calls:
                self.calls[call.tool_call_id] = call
