"""Expired suspensions: a run nobody answered within the checkpoint TTL ends, and frees its thread.

A suspended run's checkpoint expires ``RUNYARD_CHECKPOINT_TTL_SECONDS`` after the run suspended
(the agent's checkpoint store sets and judges the expiry; the service asks it through
``RunCheckpoints``, never the store). From then on nobody can resume the run, so it is finished
the one way every run is (``run_finish``): its questions answered ``{"approved": false, "reason":
"approval_expired"}``, ``run-finish {"status": "error", "reason": "approval_expired"}`` logged,
its row closed ``failed``, its checkpoint dropped — and the thread takes new messages again.

Whoever meets such a run first ends it: the sweep (at start-up and every
``SWEEP_EVERY_SECONDS``, on every replica), a confirm for it (which then answers
``confirmation_expired``), or a new message on its thread (which then starts its own run). A
process judges only what it can see: with checkpoints kept in its agents' memory it judges the
runs it holds the lease of, and those whose lease expired (their process, and its memory, are
gone) — another live process's run may well have a checkpoint it cannot see.

Exactly once, however many replicas race: the ender first answers the run's pending questions
(each a conditional update, so a confirm that answered first wins and the run resumes), then
takes the run over *at the lease epoch it read* (one conditional update, so of racing enders —
and of a confirm that answered before the questions were listed — exactly one gets the run).
An ending that failed half-way leaves the run suspended with its checkpoint expired, so the next
sweep finishes it (every step of ``RunFinisher.finish`` can be repeated).
"""

from __future__ import annotations

import logging

from runyard.ids import now_ms
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.runs.checkpoints import RunCheckpoints
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.storage import Confirmation, RunRecord, StaleLease

__all__ = [
    "APPROVAL_EXPIRED",
    "SWEEP_EVERY_SECONDS",
    "end_expired",
    "end_expired_suspensions",
    "expired_answer",
    "is_expired",
]

logger = logging.getLogger(__name__)

APPROVAL_EXPIRED = "approval_expired"
"""The ``reason`` of an expired run's ``run-finish`` and of the answers given to its questions."""

SWEEP_EVERY_SECONDS = 3600.0
"""How often a server looks for expired suspensions (confirms and new messages do not wait)."""

_EXPIRED = RunEnding("error", APPROVAL_EXPIRED)


async def is_expired(checkpoints: RunCheckpoints, run: RunRecord, *, judge: str) -> bool:
    """True when ``run`` waits for answers it can no longer use: suspended, with no live
    checkpoint (it expired, or the agent's store lost it) — as process ``judge`` can tell."""
    visible = checkpoints.shared or run.lease_owner == judge or run.lease_expires_at <= now_ms()
    return run.status == "suspended" and visible and not await checkpoints.exists(run.run_id)


def expired_answer(confirmation: Confirmation) -> bool:
    """True when ``confirmation`` was answered for its run's expiry, not by a person."""
    answer = confirmation.answer or {}
    return answer.get("approved") is False and answer.get("reason") == APPROVAL_EXPIRED


async def end_expired(
    finisher: RunFinisher, run: RunRecord, *, owner: str, lease: LeaseTerms
) -> bool:
    """End ``run`` — suspended, its checkpoint expired — as ``approval_expired``, holding its
    lease as ``owner``. True when this call ended it; False when a confirm or another ender got
    the run first (``run`` is the row as the caller read it: its epoch is the fence)."""
    if not await finisher.answer_pending(run.run_id, run.thread_id, APPROVAL_EXPIRED):
        return False  # a confirm answered first: the run resumes
    try:
        taken = await finisher.store.take_over(
            run.run_id, owner, lease_until=lease.until(), epoch=run.lease_epoch
        )
        await finisher.finish(run.run_id, run.thread_id, _EXPIRED, epoch=taken.lease_epoch)
    except StaleLease:
        return False  # another ender (or a confirm) took the run at this epoch
    logger.info("run %s on thread %s: its approval expired; ended", run.run_id, run.thread_id)
    return True


async def end_expired_suspensions(
    finisher: RunFinisher, *, owner: str, lease: LeaseTerms
) -> list[str]:
    """End every open run whose suspension expired; the ids this call ended. A run whose ending
    fails is logged and left for the next sweep."""
    ended: list[str] = []
    for run in await finisher.store.list_open_runs():
        try:
            if await is_expired(finisher.checkpoints, run, judge=owner) and await end_expired(
                finisher, run, owner=owner, lease=lease
            ):
                ended.append(run.run_id)
        except Exception:
            logger.exception("run %s: ending its expired suspension failed; retried", run.run_id)
    return ended
