"""``ToolLedger``: how far a running run got — its last step and its tool calls, durably.

A run that is driven records, after every model response, its state (a progress checkpoint)
and, around every tool call, a row keyed by the idempotency key (run id, tool call id):
``started`` before the tool runs, ``settled`` with its outcome once it did. A process that takes
the run over after its owner died reads them back (``load_progress``) and resumes from there:
settled calls are replayed, never run again. Every write is fenced by the run's lease epoch,
in the same transaction, so an owner that was superseded writes nothing. A run's progress is
forgotten as its row closes (``RunLedger.close_run``, in the same transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from runyard.storage.records import RunProgress, ToolCallEntry

__all__ = ["ToolLedger"]


@runtime_checkable
class ToolLedger(Protocol):
    """Progress checkpoints and tool-call rows of running runs, keyed by run id."""

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        """In one transaction, while the run is open at ``epoch``: replace its progress
        checkpoint with ``state`` (when given) and write ``calls`` — a ``started`` row is added
        only when the call has no row yet, a ``settled`` one replaces whatever it had.
        ``StaleLease`` (nothing written) when the epoch moved on or the run closed;
        ``RunNotFound`` when unknown."""
        ...

    async def load_progress(self, run_id: str) -> RunProgress:
        """The run's last progress checkpoint (None when it made none) and its tool calls."""
        ...
