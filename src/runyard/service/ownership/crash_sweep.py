"""The crash sweep: settle the runs whose driver stopped renewing its lease (DESIGN.md §8).

Only a run whose lease has *expired* is touched — its owner, whatever host it ran on, has not
renewed it for a whole lease period, so it died or lost the database; a live process's run is
never touched, and a process never sweeps the runs it holds itself (a renewal that came late
under load does not make its own live run look dead to it). The server sweeps at start-up and
then on every lease heartbeat, so the survivors settle a dead sibling's runs. Each run is first
taken over with one conditional update (of racing sweepers exactly one gets it), which also
fences the dead owner, under the owner ``<instance id>/sweep``: the heartbeat does not renew
that lease, so a run whose settling fails half-way expires again and a later sweep, of any
process, tries once more.

If it had already stored its questions and its checkpoint, it was suspending when the process
died: it becomes ``suspended`` (its ``confirmation-request`` events are logged if they were not
yet) and stays resumable. Otherwise the sweeper's ``carry_on`` takes it on from its last durable
step (``run_takeover``): it goes on, on the same run id, driven by the sweeping process. Only a
run that cannot go on (no ``carry_on``, or nothing to carry on from) is finished the one way
every run is (``run_finish``):
``run-finish {"status": "error", "reason": "server restarted"}`` (``"database unavailable"`` for
a run this server stopped driving during a database outage) unless it already logged its
finish, closed as ``interrupted`` — the thread is free again — and its checkpoint dropped.
Suspended runs are left alone. A run whose cancel was requested (``remote_cancel``) is finished
``cancelled`` as its user asked, whatever it was doing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from runyard.ids import now_ms
from runyard.protocol import ORCHESTRATOR_ID, ConfirmationRequestPayload
from runyard.service.event_log import EventLog
from runyard.service.ownership.leases import LeaseTerms, sweeper_of
from runyard.service.ownership.remote_cancel import end_if_cancel_requested
from runyard.service.runs.checkpoints import askers
from runyard.service.runs.confirmation_request import question_event
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.storage import Confirmation, RunRecord, StaleLease

__all__ = ["DATABASE_UNAVAILABLE", "RESTARTED", "CarryOn", "close_interrupted_runs", "settle_held"]

logger = logging.getLogger(__name__)

_QUESTIONS = frozenset({"confirmation-request", "filesystem-request"})
"""The events that ask a suspended run's questions (``question_event``)."""

RESTARTED = "server restarted"
"""Why a run a sweep took from a dead server ends, when it cannot be carried on."""
DATABASE_UNAVAILABLE = "database unavailable"
"""Why a run this server stopped driving while the database was away ends, when it cannot be
carried on once the database is back (its start was cut off before its message was stored)."""

CarryOn = Callable[[RunRecord], Awaitable[bool]]
"""Carries a run taken by the sweep on from its last durable step; False when it cannot."""


async def close_interrupted_runs(
    finisher: RunFinisher,
    *,
    instance_id: str,
    lease: LeaseTerms,
    own: bool = False,
    carry_on: CarryOn | None = None,
) -> list[str]:
    """Take over every running run whose lease expired and settle it; returns their ids.

    The runs ``instance_id`` holds are spared unless ``own`` (at start-up, when they can only
    be what a previous life of the same id left behind).
    """
    store = finisher.store
    closed: list[str] = []
    sweeper, now = sweeper_of(instance_id), now_ms()
    for run in await store.list_expired_runs(now):
        if run.lease_owner == instance_id and not own:
            continue
        taken = await store.take_over_expired(
            run.run_id, sweeper, now=now, lease_until=lease.until()
        )
        if taken is None:
            continue  # renewed, taken by another sweeper, or finished meanwhile
        try:
            carried = await settle_held(finisher, taken, carry_on, RESTARTED)
        except StaleLease:
            continue  # finished or taken over meanwhile
        except Exception:
            # Its lease, not renewed by anyone, expires again: a later sweep retries.
            logger.exception("run %s: settling it failed; a later sweep retries", run.run_id)
            continue
        logger.warning(
            "run %s on thread %s was %s: its server stopped (lease of %s expired)",
            run.run_id,
            run.thread_id,
            "taken over" if carried else "interrupted",
            run.lease_owner,
        )
        closed.append(run.run_id)
    return closed


async def settle_held(
    finisher: RunFinisher, run: RunRecord, carry_on: CarryOn | None, reason: str
) -> bool:
    """Settle ``run``, open and held at ``run.lease_epoch`` by the caller but driven by nobody
    (a sweeper took it, or its driver stopped when the database went away): cancelled if its
    cancel was requested, else suspended, carried on or closed — its ``run-finish`` giving
    ``reason``, what stopped it. True when it goes on."""
    # A cancel sent while its server was dying ends it cancelled, not carried on.
    cancelled = await end_if_cancel_requested(finisher, run)
    return not cancelled and await _settle(finisher, run, carry_on, reason)


async def _settle(
    finisher: RunFinisher, run: RunRecord, carry_on: CarryOn | None, reason: str
) -> bool:
    """Settle ``run``, already taken over: ``run.lease_epoch`` is the sweeper's. True when it
    goes on (``carry_on``)."""
    store = finisher.store
    asked = [
        c for c in await store.list_pending_confirmations(run.thread_id) if c.run_id == run.run_id
    ]
    saved = await finisher.checkpoints.load(run.run_id) if asked else None
    if saved is not None:
        await _finish_suspending(finisher.events, run, asked, askers(saved))
        await store.update_run_status(run.run_id, "suspended", epoch=run.lease_epoch)
        return False
    if carry_on is not None and await carry_on(run):
        return True
    interrupted = RunEnding("error", reason, interrupted=True)
    await finisher.finish(run.run_id, run.thread_id, interrupted, epoch=run.lease_epoch)
    return False


async def _finish_suspending(
    events: EventLog, run: RunRecord, asked: list[Confirmation], asked_by: dict[str, str]
) -> None:
    """Log the ``confirmation-request`` events a run stored but may not have logged, each under
    the agent that asks (``asked_by``: a sub-agent's questions, by tool call id)."""
    async with events.writer(run.thread_id) as writer:
        logged = {
            e.data.get("payload", {}).get("requestId")
            for e in await events.read_stored(run.thread_id)
            if e.type in _QUESTIONS and e.run_id == run.run_id
        }
        for confirmation in asked:
            if confirmation.request_id not in logged:
                payload = ConfirmationRequestPayload.model_validate(confirmation.payload)
                asker = asked_by.get(confirmation.tool_call_id, ORCHESTRATOR_ID)
                writer.emit(question_event(run.run_id, asker, payload))
        await writer.flush()
