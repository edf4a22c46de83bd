"""``Confirmer``: answers a run's ``confirmation-request`` once and resumes the run from it.

The answer is checked against the waiting call before it is stored (the agent loads the run's
checkpoint once, and the resume runs from what it loaded); ``answer_confirmation`` lets exactly
one answer through, and taking the run over at the epoch read first loses to an ender of its
expiry that got there before. A checkpoint found expired ends the run here
(``ConfirmationExpired``). With roles, the answered run is queued for a worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runyard.agent import Agent, PreparedResume
from runyard.config import Role
from runyard.errors import ResumeDataError, ResumeError
from runyard.service.agent_choice import AgentDirectory
from runyard.service.bus import EventBus
from runyard.service.errors import (
    ConfirmationAnswered,
    ConfirmationExpired,
    ConfirmationNotFound,
    InvalidAnswer,
    RunBusy,
)
from runyard.service.manager.driven_runs import DrivenRuns
from runyard.service.manager.keyed_lock import KeyedLock
from runyard.service.manager.run_agent import thread_agent
from runyard.service.owner import Owner
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.queue import queue_run
from runyard.service.ownership.suspension_expiry import end_expired, expired_answer, is_expired
from runyard.service.runs.finish import RunFinisher
from runyard.service.threads.owned import owned_thread
from runyard.storage import Confirmation, RunRecord, StaleLease, Store, Thread

__all__ = ["Confirmer"]

Resume = Callable[[RunRecord, Thread, Agent, PreparedResume], None]
"""Drives a run (held here, running) on from the answer a ``PreparedResume`` checked."""


class Confirmer:
    """Answers confirmations of runs of ``store``, held under ``instance_id`` while resumed."""

    def __init__(
        self,
        store: Store,
        bus: EventBus,
        finisher: RunFinisher,
        directory: AgentDirectory,
        runs: DrivenRuns,
        locks: KeyedLock,
        *,
        instance_id: str,
        lease: LeaseTerms,
        role: Role,
        resume: Resume,
    ) -> None:
        self._store = store
        self._bus = bus
        self._finisher = finisher
        self._directory = directory
        self._runs = runs
        self._locks = locks
        self._instance_id = instance_id
        self._lease = lease
        self._role = role
        self._resume = resume

    async def confirm(self, owner: Owner, request_id: str, answer: dict[str, Any]) -> None:
        """Answer ``request_id`` with ``answer`` and resume its run (or queue the resume)."""
        confirmation = await self._confirmation(owner, request_id)
        async with self._locks.hold(confirmation.thread_id):
            await self._runs.settle(confirmation.thread_id)
            run = await self._store.get_run(confirmation.run_id)
            if run is None or not run.is_open:
                raise await self._answered(request_id)
            if run.status != "suspended":
                raise RunBusy(f"run {run.run_id} is not waiting for an answer yet; retry")
            thread = await owned_thread(
                self._store, owner, owner.thread_id_of(confirmation.thread_id)
            )
            chosen = await thread_agent(self._directory, owner, thread)
            prepared = await self._prepare_resume(chosen, confirmation, answer, run)
            if not await self._store.answer_confirmation(request_id, answer):
                raise await self._answered(request_id)
            try:
                # At the epoch read above: an ender of its expiry that got the run first wins.
                record = await self._store.take_over(
                    run.run_id,
                    self._instance_id,
                    lease_until=self._lease.until(),
                    epoch=run.lease_epoch,
                )
            except StaleLease as exc:
                raise ConfirmationAnswered(request_id) from exc
            if self._role != "all":
                await queue_run(
                    self._store,
                    self._bus,
                    run.run_id,
                    "resume",
                    epoch=record.lease_epoch,
                    request_id=request_id,
                )
                return
            record = await self._store.update_run_status(
                run.run_id, "running", epoch=record.lease_epoch
            )
            self._resume(record, thread, chosen, prepared)

    async def _confirmation(self, owner: Owner, request_id: str) -> Confirmation:
        confirmation = await self._store.get_confirmation(request_id)
        if confirmation is None:
            raise ConfirmationNotFound(request_id)
        thread = await self._store.get_thread(
            confirmation.thread_id, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        if thread is None:
            raise ConfirmationNotFound(request_id)
        if confirmation.status != "pending":
            raise _answered_error(confirmation)
        return confirmation

    async def _answered(self, request_id: str) -> ConfirmationAnswered | ConfirmationExpired:
        """The error for a confirmation found answered: expired, or answered by someone."""
        confirmation = await self._store.get_confirmation(request_id)
        if confirmation is None:
            return ConfirmationAnswered(request_id)
        return _answered_error(confirmation)

    async def _prepare_resume(
        self, agent: Agent, confirmation: Confirmation, answer: dict[str, Any], run: RunRecord
    ) -> PreparedResume:
        """Check the answer against the waiting call before it is stored: the agent loads the
        run's checkpoint here, once, and the resume runs from what it loaded. A checkpoint that
        expired ends the run here (``ConfirmationExpired``): nobody can resume it any more."""
        try:
            return await agent.prepare_resume(
                answer, run_id=confirmation.run_id, tool_call_id=confirmation.tool_call_id
            )
        except ResumeDataError as exc:
            raise InvalidAnswer(f"the answer does not fit {exc.tool_name}: {exc.problem}") from exc
        except ResumeError as exc:
            if await is_expired(self._finisher.checkpoints, run, judge=self._instance_id):
                await end_expired(self._finisher, run, owner=self._instance_id, lease=self._lease)
                raise ConfirmationExpired(confirmation.request_id) from exc
            raise ConfirmationAnswered(confirmation.request_id) from exc


def _answered_error(confirmation: Confirmation) -> ConfirmationAnswered | ConfirmationExpired:
    if expired_answer(confirmation):
        return ConfirmationExpired(confirmation.request_id)
    return ConfirmationAnswered(confirmation.request_id)
