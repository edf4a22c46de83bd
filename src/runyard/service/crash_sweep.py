"""The crash sweep: at start-up, close the runs a previous process of this server left running.

A run still ``running`` whose lease belongs to an earlier process of the same instance (the
lease owner is ``<instance>/<process>``) lost its driver. It is taken over (fencing the dead
owner). If it had already stored its questions and its checkpoint, it was suspending when the
process died: it becomes ``suspended`` (its ``confirmation-request`` events are logged if they
were not yet) and stays resumable. Otherwise its log gets ``run-finish {"status": "error",
"reason": "server restarted"}`` unless it already logged its finish, and it is closed as
``interrupted``: the thread is free again. Suspended runs are left alone.
"""

from __future__ import annotations

import logging

from runyard.protocol import (
    ConfirmationRequestEvent,
    ConfirmationRequestPayload,
    RunFinishEvent,
    RunFinishPayload,
)
from runyard.service.active_run import ORCHESTRATOR_ID
from runyard.service.event_log import EventLog
from runyard.storage import Confirmation, RunRecord, StaleLease, Store

__all__ = ["RESTARTED", "close_interrupted_runs"]

logger = logging.getLogger(__name__)

RESTARTED = "server restarted"


async def close_interrupted_runs(
    store: Store, events: EventLog, *, instance: str, lease_owner: str
) -> list[str]:
    """Take over this instance's orphaned running runs and settle each; returns their ids."""
    closed: list[str] = []
    for run in await store.list_open_runs():
        owner = run.lease_owner
        if run.status != "running" or owner == lease_owner or not owner.startswith(f"{instance}/"):
            continue
        try:
            await _close(store, events, run, lease_owner)
        except StaleLease:
            continue  # finished or taken over meanwhile
        logger.warning(
            "run %s on thread %s was interrupted by a restart", run.run_id, run.thread_id
        )
        closed.append(run.run_id)
    return closed


async def _close(store: Store, events: EventLog, run: RunRecord, lease_owner: str) -> None:
    record = await store.take_over(run.run_id, lease_owner)
    asked = [
        c for c in await store.list_pending_confirmations(run.thread_id) if c.run_id == run.run_id
    ]
    if asked and await store.load_checkpoint(run.run_id) is not None:
        await _finish_suspending(store, events, run, asked)
        await store.update_run_status(run.run_id, "suspended", epoch=record.lease_epoch)
        return
    async with events.writer(run.thread_id) as writer:
        last = await store.read_events(run.thread_id, after_id=max(writer.last_id - 1, 0))
        finished = any(e.type == "run-finish" and e.run_id == run.run_id for e in last)
        if not finished:
            payload = RunFinishPayload(status="error", reason=RESTARTED)
            writer.emit(
                RunFinishEvent(run_id=run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload)
            )
            await writer.flush()
    for confirmation in await store.list_pending_confirmations(run.thread_id):
        if confirmation.run_id == run.run_id:
            await store.answer_confirmation(
                confirmation.request_id, {"approved": False, "reason": RESTARTED}
            )
    await store.close_run(run.run_id, "interrupted", epoch=record.lease_epoch, reason=RESTARTED)
    await store.delete_checkpoint(run.run_id)


async def _finish_suspending(
    store: Store, events: EventLog, run: RunRecord, asked: list[Confirmation]
) -> None:
    """Log the ``confirmation-request`` events a run stored but may not have logged."""
    async with events.writer(run.thread_id) as writer:
        logged = {
            e.data.get("payload", {}).get("requestId")
            for e in await events.read_stored(run.thread_id)
            if e.type == "confirmation-request" and e.run_id == run.run_id
        }
        for confirmation in asked:
            if confirmation.request_id not in logged:
                payload = ConfirmationRequestPayload.model_validate(confirmation.payload)
                writer.emit(
                    ConfirmationRequestEvent(
                        run_id=run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload
                    )
                )
        await writer.flush()
