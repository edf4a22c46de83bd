"""The crash sweep: at start-up, close the runs a previous process of this server left running.

A run still ``running`` whose lease belongs to an earlier process of the same instance (the
lease owner is ``<instance>/<process>``) lost its driver. It is taken over (fencing the dead
owner), its log gets ``run-finish {"status": "error", "reason": "server restarted"}`` unless
the run had already logged its finish, and it is closed as ``interrupted``: the thread is free
again. Suspended runs are left alone — their checkpoint and confirmations keep them resumable.
"""

from __future__ import annotations

import logging

from runyard.protocol import RunFinishEvent, RunFinishPayload
from runyard.service.active_run import ORCHESTRATOR_ID
from runyard.service.event_log import EventLog
from runyard.storage import RunRecord, StaleLease, Store

__all__ = ["RESTARTED", "close_interrupted_runs"]

logger = logging.getLogger(__name__)

RESTARTED = "server restarted"


async def close_interrupted_runs(
    store: Store, events: EventLog, *, instance: str, lease_owner: str
) -> list[str]:
    """Close this instance's orphaned running runs; returns their ids."""
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
