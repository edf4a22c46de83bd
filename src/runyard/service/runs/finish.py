"""Finishing a run: the one path by which every run ends, whoever ends it.

Its driver ends a run when the agent's stream finishes (with the verdict on the finish chunk);
the run manager ends a suspended run that is cancelled and a segment that broke outside its own
handling; the crash sweep ends a run whose process died; ``suspension_expiry`` ends a suspended run
whose checkpoint expired. Each does the same five things, here, in this order:

1. answer the run's pending confirmations ``{"approved": false, "reason"}`` — nobody may resume
   it any more (its driver's first segment skips this: it asked nothing);
2. log its ``run-finish`` — once: a finish from outside the driver that finds the run's
   ``run-finish`` already last in the log (a finish that failed half-way, retried) does not log
   another — in the one transaction that also
3. closes its row with the caller's lease epoch (``StaleLease`` when the run was taken over
   meanwhile: the new owner ends it, and nothing of the transaction is stored) and forgets its
   progress and tool calls (``ToolLedger``) — and, when its driver folded the run's events as
   it stored them (``RunFold``), stores the run's agent-tree snapshot too;
4. drop its checkpoint, through the agents (its driver's first segment skips this too: a run
   checkpoints only when it suspends on a question, and its runtime forgets what it saved when
   it ends);
5. otherwise, store the thread's agent-tree snapshots of its newly finished runs from the log
   (``store_snapshots``) — a failure here only costs the next history read a fold, which
   stores it then.

Every step can be repeated, so a finish that failed half-way is retried by running it again. A
run that never started (its row opened, nothing logged, asked or checkpointed) only has its row
to close (``close``): it never tells clients about a run they never saw begin.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from runyard.models import Usage
from runyard.protocol import (
    ORCHESTRATOR_ID,
    AgentCompletedEvent,
    AgentCompletedPayload,
    RunFinishEvent,
    RunFinishPayload,
    RunUsage,
)
from runyard.protocol import RunStatus as FinishStatus
from runyard.service.event_log import EventLog, EventWriter
from runyard.service.runs.checkpoints import RunCheckpoints, saved_usage, waiting_sub_agents
from runyard.service.threads.history import RunFold, store_snapshots
from runyard.storage import RunSnapshot, RunStatus, Store, StoredEvent

__all__ = ["RunEnding", "RunFinisher", "run_usage"]

logger = logging.getLogger(__name__)

_CLOSED_AS: dict[FinishStatus, RunStatus] = {
    "completed": "completed",
    "cancelled": "cancelled",
    "error": "failed",
}


@dataclass(frozen=True, slots=True)
class RunEnding:
    """How a run ended: what its ``run-finish`` says, and how its row is closed.

    ``usage`` is what the run's driver counted; a run ended from outside its driver reports
    what its checkpoint counted, if it has one (a suspended run); ``error`` is the failure behind
    an ``error`` ending, when there was one; the ``reason`` of a run stopped by one of its limits
    is the limit's name (``RunLimitError.reason``: ``timeout``, ``max_output_tokens``, …). An
    ``interrupted`` run (its process died) says ``error`` on the wire and is closed
    ``interrupted``.
    """

    status: FinishStatus
    reason: str | None = None
    usage: RunUsage | None = None
    error: BaseException | None = None
    interrupted: bool = False
    output: dict[str, Any] | None = None
    """A completed run's structured output (its agent's ``output_schema``), JSON-ready."""

    @property
    def closed_as(self) -> RunStatus:
        """The run row's final status."""
        return "interrupted" if self.interrupted else _CLOSED_AS[self.status]

    def event(self, run_id: str) -> RunFinishEvent:
        """The run's ``run-finish``."""
        payload = RunFinishPayload(
            status=self.status, reason=self.reason, usage=self.usage, output=self.output
        )
        return RunFinishEvent(run_id=run_id, agent_id=ORCHESTRATOR_ID, payload=payload)


class RunFinisher:
    """Ends runs of ``store``: their log in ``events``, their checkpoints in ``checkpoints``."""

    def __init__(self, store: Store, events: EventLog, checkpoints: RunCheckpoints) -> None:
        self.store = store
        self.events = events
        self.checkpoints = checkpoints

    async def finish(
        self,
        run_id: str,
        thread_id: str,
        ending: RunEnding,
        *,
        epoch: int,
        writer: EventWriter | None = None,
        folded: RunFold | None = None,
        asked: bool = True,
    ) -> None:
        """End the run as ``ending`` says, holding its lease at ``epoch``.

        Its driver passes the thread's ``writer`` it holds open, the run's events ``folded``
        as that writer stored them when they make its snapshot alone, and ``asked=False`` when
        the run asked no question (nothing to answer, and no checkpoint to drop); anyone else
        gets a writer here.
        """
        if asked:
            await self.answer_pending(run_id, thread_id, ending.reason or ending.status)
        # Ended from outside its driver, a run is known by its checkpoint, if it has one.
        from_outside = writer is None or ending.usage is None
        saved = await self.checkpoints.load(run_id) if from_outside else None
        if saved is not None and ending.usage is None:
            ending = replace(ending, usage=run_usage(saved_usage(saved)))
        if writer is not None:
            snapshot = await self._log_closing(writer, run_id, ending, epoch, folded)
        else:
            snapshot = None
            # A suspended run may wait on sub-agents: they end with it, before its run-finish.
            waiting = [] if saved is None else waiting_sub_agents(saved)
            async with self.events.writer(thread_id) as own:
                if await self._logged(own, run_id):
                    await self.close(run_id, ending, epoch=epoch)
                else:
                    for agent_id, role in waiting:
                        own.emit(_sub_agent_ended(run_id, agent_id, role, ending))
                    await self._log_closing(own, run_id, ending, epoch, None)
        if asked:
            await self.checkpoints.drop(run_id)
        if snapshot is None:
            await self.snapshot(thread_id)

    async def _log_closing(
        self,
        writer: EventWriter,
        run_id: str,
        ending: RunEnding,
        epoch: int,
        folded: RunFold | None,
    ) -> RunSnapshot | None:
        """Log the run's ``run-finish`` in the transaction that closes it; the snapshot stored
        with them, if its events made it."""
        stored: list[RunSnapshot | None] = [None]

        async def close(final: list[StoredEvent]) -> None:
            snapshot = None
            if folded is not None:
                folded.add(final)
                snapshot = folded.snapshot()
            await self.close(run_id, ending, epoch=epoch, final_events=final, snapshot=snapshot)
            stored[0] = snapshot

        await writer.store_last([ending.event(run_id)], close)
        return stored[0]

    async def snapshot(self, thread_id: str) -> None:
        """Store the agent trees of the thread's newly finished runs; never fails the ending."""
        try:
            await store_snapshots(self.store, thread_id)
        except Exception:
            logger.exception("thread %s: storing run snapshots failed; a read retries", thread_id)

    async def answer_pending(self, run_id: str, thread_id: str, reason: str) -> bool:
        """Answer the run's pending confirmations ``{"approved": false, "reason"}``.

        False, and the rest left alone, as soon as one was answered by someone else meanwhile:
        a confirm won the race and is resuming the run.
        """
        answer = {"approved": False, "reason": reason}
        for confirmation in await self.store.list_pending_confirmations(thread_id):
            if confirmation.run_id != run_id:
                continue
            if not await self.store.answer_confirmation(confirmation.request_id, answer):
                return False
        return True

    async def close(
        self,
        run_id: str,
        ending: RunEnding,
        *,
        epoch: int,
        final_events: Sequence[StoredEvent] = (),
        snapshot: RunSnapshot | None = None,
    ) -> None:
        """Close the run's row as ``ending`` says, forgetting its progress (no takeover can want
        it any more) and storing ``final_events`` and ``snapshot`` in the same transaction;
        ``StaleLease`` when ``epoch`` is not current. One write, so a close the database dropped
        either left the run open, or closed it with nothing left behind: whoever retries finds
        one or the other."""
        await self.store.close_run(
            run_id,
            ending.closed_as,
            epoch=epoch,
            reason=ending.reason,
            final_events=final_events,
            snapshot=snapshot,
        )

    async def _logged(self, writer: EventWriter, run_id: str) -> bool:
        """True when the run's ``run-finish`` is the newest event of its thread's log."""
        last = await self.store.read_events(writer.thread_id, after_id=max(writer.last_id - 1, 0))
        return any(e.type == "run-finish" and e.run_id == run_id for e in last)


def _sub_agent_ended(
    run_id: str, agent_id: str, role: str, ending: RunEnding
) -> AgentCompletedEvent:
    """``agent-completed`` for a waiting sub-agent whose run ends from outside: as its run."""
    error = ending.reason if ending.status == "error" else None
    payload = AgentCompletedPayload(role=role, result="", error=error, status=ending.status)
    return AgentCompletedEvent(run_id=run_id, agent_id=agent_id, payload=payload)


def run_usage(usage: Usage) -> RunUsage:
    """The wire form of a run's usage."""
    return RunUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        cost=usage.cost,
        models=list(usage.models) or None,
    )
