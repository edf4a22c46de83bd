"""``RunManager``: runs per thread — start, confirm, cancel — as tasks this object owns.

The database decides every race (DESIGN.md §8): ``open_run`` lets exactly one run be open per
thread (running *or* suspended), ``answer_confirmation`` lets exactly one answer through, and
lease epochs fence a writer that was superseded. The manager holds the leases of the runs it
drives under its instance id and renews them on a heartbeat; a run whose lease another process
took over is stopped here. A suspended run whose checkpoint expired is ended
(``suspension_expiry``) by a slower sweep, or at once by a confirm or a message that meets it.
Within this process a per-thread lock keeps start, confirm and cancel of one thread from
interleaving. A cancel for a run another process drives reaches it through the database and the
bus (``remote_cancel``). Closing hands the runs still going over to the other processes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

from runyard.agent import Agent, PreparedResume, StreamResult
from runyard.config import Role
from runyard.errors import ResumeDataError, ResumeError
from runyard.ids import new_id, now_ms
from runyard.messages import AgentMessage
from runyard.runtime import RunJournal
from runyard.service.agent_choice import AgentChoice, AgentDirectory, AgentRequest, FixedAgents
from runyard.service.background.status import read_background_tasks
from runyard.service.background.tasks import BACKGROUND_TASKS
from runyard.service.errors import (
    AgentVersionNotFound,
    AgentVersionUnavailable,
    ConcurrencyLimited,
    ConfirmationAnswered,
    ConfirmationExpired,
    ConfirmationNotFound,
    InvalidAnswer,
    RunActive,
    RunBusy,
    ServiceStopping,
)
from runyard.service.event_log import EventLog
from runyard.service.limits import CONCURRENT_RUNS_RETRY_AFTER, TenantLimits, run_quota
from runyard.service.manager.keyed_lock import KeyedLock
from runyard.service.manager.request_rate import RequestRate
from runyard.service.owner import Owner
from runyard.service.ownership.crash_sweep import (
    DATABASE_UNAVAILABLE,
    RESTARTED,
    close_interrupted_runs,
    settle_held,
)
from runyard.service.ownership.leases import Heartbeat, LeaseTerms, lost_leases, new_instance_id
from runyard.service.ownership.queue import QueueWorker, queue_run
from runyard.service.ownership.remote_cancel import (
    CancelListener,
    cancel_queued,
    end_if_cancel_requested,
    request_cancel,
    wait_until_settled,
)
from runyard.service.ownership.suspension_expiry import (
    SWEEP_EVERY_SECONDS,
    end_expired,
    end_expired_suspensions,
    expired_answer,
    is_expired,
)
from runyard.service.ownership.takeover import Takeover, plan_takeover
from runyard.service.runs.active import ORCHESTRATOR_ID, USER_CANCELLED, ActiveRun
from runyard.service.runs.checkpoints import RunCheckpoints
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.service.runs.segment import RunSegment, SegmentStart, log_opening
from runyard.service.runs.telemetry_labels import telemetry_labels
from runyard.service.threads.owned import claim_thread, owned_thread
from runyard.service.threads.views import ThreadStatus
from runyard.service.tools import SERVICE_DEPS, ServiceDeps
from runyard.storage import (
    Confirmation,
    RunConflict,
    RunQuota,
    RunQuotaReached,
    RunRecord,
    StaleLease,
    Store,
    Thread,
    database_unavailable,
)
from runyard.telemetry import Telemetry
from runyard.telemetry.run_telemetry import RunTelemetry

__all__ = ["RunManager"]

logger = logging.getLogger(__name__)

_SETTLE_SECONDS = 10.0
_HAND_OFF_SECONDS = 2.0
"""How long a run handed off at shutdown gets to stop writing before its task is cancelled."""


class RunManager:
    """Starts, resumes and cancels runs; every run's task belongs to this object.

    ``agents`` chooses each run's agent: an ``AgentDirectory`` (``CatalogAgents`` routes by the
    catalog), or a mapping of names to agents where a thread runs ``default_agent`` unless a
    message names another. The choice is stored with the thread, and a confirm resumes on the
    agent the thread's run started with. ``instance`` is this process's instance id, the owner
    of its leases (default: ``<host name>-<random hex>``); a lease lasts ``lease_seconds``
    unless renewed (see ``keep_leases``). ``titles`` turns thread-title generation on (it costs one small model
    call per thread). ``tenant_limits`` bound every tenant's new runs over all its agents, as
    each agent's catalog ``limits`` bound them per agent (``runyard.service.limits``).

    ``role`` says where runs execute (docs/deploy.md): ``all`` drives each run in the process
    that accepted it; ``api`` and ``worker`` queue the runs they accept, starts and resumes
    alike, and a ``worker`` claims queued runs, driving at most ``worker_concurrency`` at once,
    looking at the queue at least every ``queue_poll_seconds``. With roles, a run whose driver
    died is queued again rather than carried on by whoever swept it.
    """

    def __init__(
        self,
        store: Store,
        events: EventLog,
        agents: Mapping[str, Agent] | AgentDirectory,
        *,
        default_agent: str | None = None,
        instance: str | None = None,
        lease_seconds: float = 30.0,
        titles: bool = True,
        tenant_limits: TenantLimits | None = None,
        telemetry: RunTelemetry | None = None,
        role: Role = "all",
        worker_concurrency: int = 16,
        queue_poll_seconds: float = 1.0,
    ) -> None:
        if isinstance(agents, Mapping):
            agents = FixedAgents(agents, default_agent or next(iter(agents), ""))
        self.store = store
        self.events = events
        self.directory: AgentDirectory = agents
        self.instance_id = new_instance_id(instance or "")
        self.lease = LeaseTerms(lease_seconds)
        self.titles = titles
        self.finisher = RunFinisher(store, events, RunCheckpoints(agents.loaded()))
        self.request_rate = RequestRate(store)
        """New runs per minute, per tenant and per (tenant, agent), counted in the store."""
        self.tenant_limits = tenant_limits or TenantLimits()
        self.telemetry = telemetry or RunTelemetry()
        """Where each run reports its spans (the server's traces, metrics and logs)."""
        self._runs: dict[str, ActiveRun] = {}
        self._unended: dict[str, Callable[[], Awaitable[None]]] = {}
        """Runs nothing drives any more whose ending failed: id → the ending, to try again."""
        self._locks = KeyedLock()
        self._closing = False
        self._cancels = CancelListener(events.bus, self.instance_id, self._cancel_requested)
        self._heartbeat = Heartbeat(self._beat, self.lease.renew_every)
        self._expiry_sweep = Heartbeat(self._sweep_expired, SWEEP_EVERY_SECONDS)
        self.role: Role = role
        self._worker = (
            QueueWorker(
                store,
                events.bus,
                self.instance_id,
                slots=worker_concurrency,
                busy=lambda: len(self._runs),
                launch=self._run_claimed,
                lease=self.lease,
                poll_seconds=queue_poll_seconds,
            )
            if role == "worker"
            else None
        )

    # -- requests -----------------------------------------------------------------------------

    async def start(
        self,
        owner: Owner,
        thread_id: str,
        message: str,
        *,
        agent: str | None = None,
        version: str | None = None,
        context: Mapping[str, Any] | None = None,
        message_id: str | None = None,
    ) -> str:
        """Start a run for ``message``; its id. ``RunActive`` while the thread has an open run.

        ``message_id`` is the user message's id (default: a new one); the run's ``run-start``
        names it, which is how a caller finds the run its message started (gRPC idempotency).

        ``agent`` names the agent (``UnknownAgent`` when there is none for the owner's tenant);
        ``version`` pins a version of it (``AgentVersionNotFound`` when it has none such);
        ``context`` is the caller's routing context (docs/catalog.md, "The invocation context").
        ``RateLimited`` when the tenant used up a ``requests_per_minute`` (the agent's, or its
        own), ``ConcurrencyLimited`` when as many of its runs are running as a
        ``concurrent_runs`` allows: checked before anything is stored, so a refused request
        leaves nothing behind and is not counted. ``ServiceStopping`` once ``aclose`` began.
        """
        self._admit()
        key = owner.thread_key(thread_id)
        known = await self.store.get_thread(
            key, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        # Chosen before any run is opened, so an unknown agent leaves nothing behind.
        chosen = await self._choose(owner, known, AgentRequest(agent, context or {}, version))
        choice = chosen[0]
        limits = self.directory.limits(owner.tenant_id, choice)
        admission = await self.request_rate.admit(
            owner.tenant_id, choice.agent_id, limits, self.tenant_limits
        )
        quota = run_quota(limits, self.tenant_limits)
        async with self._locks.hold(key):
            try:
                # A thread read above still exists: only a new one is claimed (created).
                thread = known or await claim_thread(self.store, owner, thread_id)
                record = await self._open_run(owner, thread_id, choice.agent_id, quota)
            except Exception:
                await admission.give_back()  # no run started: the request does not count
                raise
            try:
                await self._begin(record, owner, thread, chosen, message, message_id)
            except BaseException as exc:
                # Nothing drives the run yet: close its row, or the thread stays blocked.
                await self._fail_unlaunched(record, exc)
                raise
        return record.run_id

    async def confirm(self, owner: Owner, request_id: str, answer: dict[str, Any]) -> None:
        """Answer a ``confirmation-request`` once and resume its run from the checkpoint
        (``ServiceStopping`` once ``aclose`` began: another process resumes it)."""
        self._admit()
        confirmation = await self._confirmation(owner, request_id)
        async with self._locks.hold(confirmation.thread_id):
            await self._settle_local(confirmation.thread_id)
            run = await self.store.get_run(confirmation.run_id)
            if run is None or not run.is_open:
                raise await self._answered(request_id)
            if run.status != "suspended":
                raise RunBusy(f"run {run.run_id} is not waiting for an answer yet; retry")
            thread = await owned_thread(
                self.store, owner, owner.thread_id_of(confirmation.thread_id)
            )
            chosen = await self._thread_agent(owner, thread)
            prepared = await self._prepare_resume(chosen, confirmation, answer, run)
            if not await self.store.answer_confirmation(request_id, answer):
                raise await self._answered(request_id)
            try:
                # At the epoch read above: an ender of its expiry that got the run first wins.
                record = await self.store.take_over(
                    run.run_id,
                    self.instance_id,
                    lease_until=self.lease.until(),
                    epoch=run.lease_epoch,
                )
            except StaleLease as exc:
                raise ConfirmationAnswered(request_id) from exc
            if self.role != "all":
                await queue_run(
                    self.store,
                    self.events.bus,
                    run.run_id,
                    "resume",
                    epoch=record.lease_epoch,
                    request_id=request_id,
                )
                return
            record = await self.store.update_run_status(
                run.run_id, "running", epoch=record.lease_epoch
            )
            self._launch_resume(record, thread, chosen, prepared)

    async def cancel(self, owner: Owner, thread_id: str) -> bool:
        """End the thread's open run as ``cancelled``; False (a no-op) when nothing was open.

        Idempotent: an unknown thread (another owner's included) has nothing to cancel either.
        A run another process drives is cancelled through the database and that process
        (``remote_cancel``); this waits until it has ended, or for at most 10 s — the cancel
        stays recorded and its owner, or whoever takes the run over, honours it.
        """
        key = owner.thread_key(thread_id)
        mine = await self.store.get_thread(
            key, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        if mine is None:
            return False
        async with self._locks.hold(key):
            local = self._runs.get(key)
            if local is not None:
                local.cancel(USER_CANCELLED)
                await self._settle_local(key)
            run = await self.store.get_active_run(key)
            if run is None:
                return local is not None
            if run.status == "running" and local is not None and local.run_id == run.run_id:
                return True  # still ending here, after the settle's bound
            if run.status == "queued":
                run = await cancel_queued(self.finisher, run, self.instance_id, self.lease)
            if run is not None and run.status == "running":
                run = await self._cancel_elsewhere(run)
            if run is not None and run.status == "suspended":
                await self._cancel_suspended(run)
            return True

    async def status(self, owner: Owner, thread_id: str) -> ThreadStatus:
        """Whether the thread runs or waits, and its open run's background tasks (from the
        stored log, so every replica and a reloaded page see the same); ``ThreadNotFound``
        like every other read."""
        thread = await owned_thread(self.store, owner, thread_id)
        run = await self.store.get_active_run(thread.id)
        if run is None:
            return ThreadStatus(False, False)
        # A run that has asked its questions is waiting, even in the instant before its
        # status row says so (it persists the questions first, then flips the status).
        asked = any(
            c.run_id == run.run_id
            for c in await self.store.list_pending_confirmations(run.thread_id)
        )
        waiting = run.status == "suspended" or asked
        tasks = await read_background_tasks(self.store, run.thread_id, run.run_id)
        return ThreadStatus(not waiting, waiting, run.run_id, tuple(tasks))

    async def delete_thread(self, owner: Owner, thread_id: str) -> None:
        """Cancel whatever runs on the thread, then delete it with its messages and events."""
        await owned_thread(self.store, owner, thread_id)
        await self.cancel(owner, thread_id)
        await self.store.delete_thread(
            owner.thread_key(thread_id), tenant_id=owner.tenant_id, resource_id=owner.user_id
        )

    async def keep_leases(self) -> list[str]:
        """Start-up, before the first run: sweep, then renew and sweep on every heartbeat.

        What a previous life of this instance id held (a restart with ``RUNYARD_INSTANCE_ID``
        set) is given up first, so it is swept now rather than renewed forever. Until
        ``aclose`` a heartbeat renews this process's leases every third of a lease, stops the
        runs whose lease another process took over, and sweeps. The ids swept at start-up.
        """
        if self._runs:
            raise RuntimeError("keep_leases() belongs before the first run of this manager")
        await self.store.renew_leases(self.instance_id, now_ms())
        swept = await close_interrupted_runs(
            self.finisher,
            instance_id=self.instance_id,
            lease=self.lease,
            own=True,
            carry_on=self._carry_on,
        )
        await self.expire_suspensions()
        await self._cancels.start()
        if self._worker is not None:
            await self._worker.start()
        self._heartbeat.start()
        self._expiry_sweep.start()
        return swept

    async def sweep_interrupted(self) -> list[str]:
        """Settle the runs of other processes whose lease expired — their server stopped —
        (carried on here from their last durable step; suspended when they had already asked
        their questions; else closed); their ids."""
        return await close_interrupted_runs(
            self.finisher, instance_id=self.instance_id, lease=self.lease, carry_on=self._carry_on
        )

    async def expire_suspensions(self) -> list[str]:
        """End the suspended runs whose checkpoint expired (``run-finish`` ``approval_expired``),
        of every process — exactly once however many sweep; the ids this call ended."""
        return await end_expired_suspensions(
            self.finisher, owner=self.instance_id, lease=self.lease
        )

    async def wait_idle(self, thread_key: str) -> None:
        """Wait until this process drives no segment of the thread stored under ``thread_key``
        (``Owner.thread_key``; tests, shutdown)."""
        run = self._runs.get(thread_key)
        while run is not None and run.task is not None:
            await asyncio.gather(asyncio.shield(run.task), return_exceptions=True)
            run = self._runs.get(thread_key)

    async def aclose(self, settle_seconds: float = _SETTLE_SECONDS) -> None:
        """Stop taking runs and hand the ones still going over to the other processes.

        From now on ``start`` and ``confirm`` raise ``ServiceStopping``. The runs this process
        drives get ``settle_seconds`` to end (or suspend) by themselves while their leases are
        renewed (the shutdown passes its grace); then the heartbeat stops and every run still
        going is stopped *without being finished* — no ``run-finish``, no cancel — and its lease
        released, so the next sweep of any process (this one's next start included) takes it
        over at once.
        """
        self._closing = True
        if self._worker is not None:
            await self._worker.stop()  # claims nothing more; what it drives is handed over
        tasks = [run.task for run in self._runs.values() if run.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=settle_seconds)
        await self._heartbeat.stop()
        await self._expiry_sweep.stop()
        await self._hand_off()
        await self._cancels.stop()

    async def _hand_off(self) -> None:
        """Stop driving every run still going, then release its lease (epoch-fenced)."""
        going = [run for run in self._runs.values() if run.task is not None]
        for run in going:
            run.lose_lease()
        tasks = {run.task: run for run in going if run.task is not None}
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=_HAND_OFF_SECONDS)
            for task in pending:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        now = now_ms()
        for run in going:
            try:
                released = await self.store.release_lease(run.run_id, epoch=run.epoch, now=now)
            except Exception:
                logger.exception("run %s: releasing its lease failed; it expires", run.run_id)
                continue
            if released:
                logger.warning("run %s: handed over at shutdown (lease released)", run.run_id)

    # -- internals ----------------------------------------------------------------------------

    async def _choose(
        self, owner: Owner, thread: Thread | None, request: AgentRequest
    ) -> tuple[AgentChoice, Agent]:
        """The agent of a new run on ``thread`` (None: a new thread), and why."""
        stored = AgentChoice.stored(thread.metadata) if thread is not None else None
        choice = self.directory.choose(owner.tenant_id, owner.user_id, request, stored)
        try:
            return choice, await self.directory.agent(owner.tenant_id, choice)
        except AgentVersionUnavailable as exc:
            if request.version is None:
                raise
            raise AgentVersionNotFound(exc.name, exc.version) from exc

    async def _thread_agent(self, owner: Owner, thread: Thread) -> Agent:
        """The agent the thread's open run started with, at its version."""
        stored = AgentChoice.stored(thread.metadata)
        if stored is None:  # a thread from before choices were stored: the directory's default
            stored = self.directory.choose(owner.tenant_id, owner.user_id, AgentRequest(), None)
        return await self.directory.agent(owner.tenant_id, stored)

    def _admit(self) -> None:
        if self._closing:
            raise ServiceStopping()

    async def _cancel_elsewhere(self, run: RunRecord) -> RunRecord | None:
        """Cancel a running run this process does not drive; the row once it stopped running
        (None: gone), or as it is after the wait's bound."""
        if not await request_cancel(self.store, self.events.bus, run):
            return await self.store.get_run(run.run_id)
        if run.lease_expires_at <= now_ms():
            await self.sweep_interrupted()  # its owner is gone: the sweep honours the cancel
        return await wait_until_settled(self.events, self.store, run, _SETTLE_SECONDS)

    async def _cancel_requested(self, run_id: str) -> None:
        """A cancel message for ``run_id``: cancel it if this process drives it and the
        database, the truth, holds the request at the epoch it drives."""
        row = await self.store.get_run(run_id)
        if row is not None:
            self._honour_cancel(row)

    def _honour_cancel(self, row: RunRecord) -> None:
        if row.cancel_requested_at is None:
            return
        for run in self._runs.values():
            if (run.run_id, run.epoch) == (row.run_id, row.lease_epoch) and not run.lease_lost:
                run.cancel(USER_CANCELLED)

    def _deps(self, run: ActiveRun) -> dict[str, Any]:
        scope = run.owner.scope(run.thread_id)
        deps = ServiceDeps(self.store, run.agent, ORCHESTRATOR_ID, scope, self.directory)
        return {SERVICE_DEPS: deps, BACKGROUND_TASKS: run.background}

    async def _open_run(
        self, owner: Owner, thread_id: str, agent_id: str, quota: RunQuota | None
    ) -> RunRecord:
        """Open the thread's run of ``agent_id`` within ``quota``; a run that already logged its
        ``run-finish`` is waited for."""
        key, run_id = owner.thread_key(thread_id), new_id("run")
        for attempt in (1, 2):
            try:
                return await self.store.open_run(
                    run_id,
                    thread_id=key,
                    tenant_id=owner.tenant_id,
                    owner=self.instance_id,
                    lease_until=self.lease.until(),
                    agent_id=agent_id,
                    quota=quota,
                )
            except RunQuotaReached as exc:
                limited = agent_id if exc.scope == "agent" else None
                raise ConcurrencyLimited(limited, exc.limit, CONCURRENT_RUNS_RETRY_AFTER) from exc
            except RunConflict as exc:
                if attempt == 2 or not await self._freed(key):
                    raise RunActive(thread_id) from exc
        raise AssertionError("unreachable")

    async def _freed(self, thread_id: str) -> bool:
        """True once the thread's open run is gone: it was finishing, or its suspension had
        expired and is ended here."""
        run = await self.store.get_active_run(thread_id)
        if run is not None and await is_expired(
            self.finisher.checkpoints, run, judge=self.instance_id
        ):
            await end_expired(self.finisher, run, owner=self.instance_id, lease=self.lease)
            return True
        return await self._finished_soon(thread_id)

    async def _finished_soon(self, thread_id: str) -> bool:
        """True once the open run, which has already told clients it finished, has closed.

        Clients see ``run-finish`` a moment before the run's row is closed (the event must be
        durable first); a message sent in that moment waits for the close instead of a 409.
        """
        local = self._runs.get(thread_id)
        if local is not None:
            if not local.finishing:
                return False
            await self._settle_local(thread_id)
            return True
        run = await self.store.get_active_run(thread_id)
        if run is None:
            return True
        last_id = await self.store.last_event_id(thread_id)
        last = await self.store.read_events(thread_id, after_id=max(last_id - 1, 0))
        if not any(e.type == "run-finish" and e.run_id == run.run_id for e in last):
            return False
        try:
            async with asyncio.timeout(_SETTLE_SECONDS):
                # The close happens in another process: only the database can tell.
                while await self.store.get_active_run(thread_id) is not None:  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
        except TimeoutError:
            return False
        return True

    def _launch(self, run: ActiveRun, start: SegmentStart) -> None:
        segment = RunSegment(run, start, self.store, self.events, self.finisher)
        self._runs[run.thread_id] = run

        async def body() -> None:
            try:
                await segment.drive()
            except Exception as exc:
                if run.lease_lost:
                    logger.exception("run %s: the segment failed", run.run_id)
                elif database_unavailable(exc):
                    await self._stopped_by_outage(run.run_id, run.epoch, exc)
                else:
                    logger.exception("run %s: the segment failed", run.run_id)
                    await self._finish_broken(run, exc)
            finally:
                if self._runs.get(run.thread_id) is run:
                    del self._runs[run.thread_id]
                if self._worker is not None:
                    self._worker.wake()  # a slot came free

        run.task = asyncio.create_task(body(), name=f"runyard-run-{run.run_id}")

    async def _begin(
        self,
        record: RunRecord,
        owner: Owner,
        thread: Thread,
        agent: tuple[AgentChoice, Agent],
        message: str,
        message_id: str | None = None,
    ) -> None:
        """Store the thread's agent and the user's message, then launch the first segment."""
        (choice, chosen), thread_id = agent, record.thread_id
        await self.store.save_thread(
            thread_id,
            tenant_id=owner.tenant_id,
            resource_id=owner.user_id,
            metadata=choice.recorded_in(thread.metadata),
        )
        given = {} if message_id is None else {"id": message_id}
        user = AgentMessage.user(message, **given)
        # Stored now, not only with the turn: a client reloading mid-run sees what it asked.
        await self.store.save_messages(
            thread_id, [user], tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        run = ActiveRun(record.run_id, thread_id, owner, chosen, record.lease_epoch)
        if self.role != "all":
            await self._queue_start(run, user.id, choice)
            return
        title_from = message if self.titles and thread.title is None else None
        opened = partial(
            self._first_stream, run, user, self.telemetry.of(telemetry_labels(run, choice))
        )
        self._launch(run, SegmentStart(opened, user.id, title_from, choice))

    async def _queue_start(self, run: ActiveRun, message_id: str, choice: AgentChoice) -> None:
        """Log the run's opening (clients see it started), then queue it for a worker."""
        async with self.events.writer(run.thread_id) as writer:
            await log_opening(writer, self.store, run, message_id, choice)
            await writer.flush()
        await queue_run(self.store, self.events.bus, run.run_id, "start", epoch=run.epoch)

    async def _first_stream(
        self, run: ActiveRun, user: AgentMessage, telemetry: Telemetry, journal: RunJournal
    ) -> StreamResult:
        """The run's agent answering ``user`` from the start."""
        return await run.agent.stream(
            user,
            thread_id=run.thread_id,
            resource_id=run.owner.user_id,
            tenant_id=run.owner.tenant_id,
            run_id=run.run_id,
            abort_signal=run.abort,
            deps=self._deps(run),
            telemetry=telemetry,
            journal=journal,
        )

    async def _carry_on(self, run: RunRecord) -> bool:
        """Carry on a run whose driver stopped (the sweep, or this process after a database
        outage, holds it at ``run.lease_epoch``): here, or — with roles — queued for a worker.
        False when it cannot be (the caller closes it)."""
        if self.role == "all":
            return await self._drive_recovered(run)
        await queue_run(self.store, self.events.bus, run.run_id, "recover", epoch=run.lease_epoch)
        return True

    async def _drive_recovered(self, run: RunRecord) -> bool:
        """Carry on here, from its last durable step, a run whose driver stopped (held at
        ``run.lease_epoch``); False when it cannot be."""
        try:
            takeover = await plan_takeover(self.store, run)
            if takeover is None:
                return False
            owner = takeover.owner
            thread = await owned_thread(self.store, owner, owner.thread_id_of(run.thread_id))
            agent = await self._thread_agent(owner, thread)
        except Exception as exc:
            if database_unavailable(exc):
                raise  # not a reason to close it: whoever settles it tries again
            logger.exception("run %s: cannot be carried on; closing it", run.run_id)
            return False
        record = await self.store.take_over(
            run.run_id, self.instance_id, lease_until=self.lease.until(), epoch=run.lease_epoch
        )
        active = ActiveRun(run.run_id, run.thread_id, owner, agent, record.lease_epoch)
        state, user = takeover.state, takeover.user
        telemetry = self.telemetry.of(telemetry_labels(active, AgentChoice.stored(thread.metadata)))
        opened = (
            partial(self._first_stream, active, user, telemetry)
            if state is None and user is not None
            else partial(self._recovered_stream, active, takeover, telemetry)
        )
        self._launch(active, SegmentStart(opened, resumed_after=takeover.after_event_id))
        return True

    async def _run_claimed(self, run: RunRecord) -> None:
        """Drive a run this worker claimed from the queue, as its ``queued_work`` says (it is
        held here at ``run.lease_epoch``, running). One that cannot go on is ended, never left
        claimed and undriven; a cancel asked while it was queued ends it cancelled."""
        try:
            if await end_if_cancel_requested(self.finisher, run):
                return
            if run.queued_work == "start":
                await self._start_claimed(run)
            elif run.queued_work == "resume":
                await self._resume_claimed(run)
            else:  # recover: as a sweep settles it, but driven here
                await settle_held(self.finisher, run, self._drive_recovered, RESTARTED)
        except Exception as exc:
            if database_unavailable(exc):
                await self._stopped_by_outage(run.run_id, run.lease_epoch, exc)
                return
            logger.exception("run %s: the queued run could not start", run.run_id)
            ending = RunEnding("error", f"the run could not start: {exc}", error=exc)
            finish = partial(
                self.finisher.finish, run.run_id, run.thread_id, ending, epoch=run.lease_epoch
            )
            await self._end(run.run_id, finish)

    async def _start_claimed(self, run: RunRecord) -> None:
        """A queued start: its opening is logged; its agent answers the user from the start."""
        takeover = await plan_takeover(self.store, run)
        if takeover is None or takeover.user is None:
            raise RuntimeError("its user message is gone")
        owner, user = takeover.owner, takeover.user
        thread = await owned_thread(self.store, owner, owner.thread_id_of(run.thread_id))
        agent = await self._thread_agent(owner, thread)
        active = ActiveRun(run.run_id, run.thread_id, owner, agent, run.lease_epoch)
        telemetry = self.telemetry.of(telemetry_labels(active, AgentChoice.stored(thread.metadata)))
        title_from = user.text if self.titles and thread.title is None else None
        opened = partial(self._first_stream, active, user, telemetry)
        self._launch(active, SegmentStart(opened, title_from=title_from))

    async def _resume_claimed(self, run: RunRecord) -> None:
        """A queued resume: the answer its confirmation stored carries it on."""
        request_id = run.queued_request_id
        confirmation = await self.store.get_confirmation(request_id) if request_id else None
        if confirmation is None or confirmation.answer is None:
            raise RuntimeError(f"the answer to {request_id} is gone")
        owner = Owner.of_key(run.thread_id)
        thread = await owned_thread(self.store, owner, owner.thread_id_of(run.thread_id))
        agent = await self._thread_agent(owner, thread)
        prepared = await agent.prepare_resume(
            confirmation.answer, run_id=run.run_id, tool_call_id=confirmation.tool_call_id
        )
        self._launch_resume(run, thread, agent, prepared)

    def _launch_resume(
        self, run: RunRecord, thread: Thread, agent: Agent, prepared: PreparedResume
    ) -> None:
        """Drive ``run`` (held here, running) on from the answer ``prepared`` checked."""
        owner = Owner.of_key(run.thread_id)
        active = ActiveRun(run.run_id, run.thread_id, owner, agent, run.lease_epoch)
        telemetry = self.telemetry.of(telemetry_labels(active, AgentChoice.stored(thread.metadata)))

        async def open_stream(journal: RunJournal) -> StreamResult:
            return await agent.resume_prepared(
                "stream",
                prepared,
                abort_signal=active.abort,
                deps=self._deps(active),
                telemetry=telemetry,
                journal=journal,
            )

        self._launch(active, SegmentStart(open_stream))

    async def _stopped_by_outage(self, run_id: str, epoch: int, cause: BaseException) -> None:
        """The run's driver (or its start) stopped because the database was away: the run is
        not over. It is settled as a sweep settles a dead process's run — carried on here from
        its last durable step, at a new epoch that fences whatever the stopped driver still had
        in flight — once the database answers (retried on every heartbeat); a run another
        process took meanwhile is left to it."""
        logger.warning("run %s: stopped, the database is away: %s", run_id, cause)
        settle = partial(self._carry_on_after_outage, run_id, epoch)
        await asyncio.shield(self._end(run_id, settle))

    async def _carry_on_after_outage(self, run_id: str, epoch: int) -> None:
        record = await self.store.get_run(run_id)
        if record is None or not record.is_open or record.lease_epoch != epoch:
            return
        if await settle_held(self.finisher, record, self._carry_on, DATABASE_UNAVAILABLE):
            logger.warning("run %s: carried on after the database came back", run_id)

    async def _recovered_stream(
        self, run: ActiveRun, takeover: Takeover, telemetry: Telemetry, journal: RunJournal
    ) -> StreamResult:
        assert takeover.state is not None
        return await run.agent.recover(
            "stream",
            takeover.state,
            takeover.calls,
            abort_signal=run.abort,
            deps=self._deps(run),
            telemetry=telemetry,
            journal=journal,
        )

    async def _finish_broken(self, run: ActiveRun, cause: Exception) -> None:
        """Finish a run whose segment broke outside its own error handling: its clients still
        get a ``run-finish``, and its row is closed ``failed``."""
        ending = RunEnding("error", f"the run failed: {cause}", error=cause)
        finish = partial(self.finisher.finish, run.run_id, run.thread_id, ending, epoch=run.epoch)
        await self._end(run.run_id, finish)

    async def _fail_unlaunched(self, record: RunRecord, cause: BaseException) -> None:
        """Close the row of a run that never started: it logged nothing, so it says nothing.
        One stopped by a database outage is carried on from its message, if that was stored."""
        if database_unavailable(cause):
            await self._stopped_by_outage(record.run_id, record.lease_epoch, cause)
            return
        reason = f"the run could not start: {str(cause) or type(cause).__name__}"
        logger.error("run %s: %s", record.run_id, reason)
        close = partial(
            self.finisher.close, record.run_id, RunEnding("error", reason), epoch=record.lease_epoch
        )
        await asyncio.shield(self._end(record.run_id, close))

    async def _end(self, run_id: str, ending: Callable[[], Awaitable[None]]) -> None:
        """End a run nothing drives any more; retried on every heartbeat until it succeeds (it is
        this process's lease, so no sweep would)."""
        try:
            await ending()
        except StaleLease:
            pass  # closed already, or taken over: someone else ends it
        except Exception:
            logger.exception("run %s: ending it failed; the heartbeat retries", run_id)
            self._unended[run_id] = ending
            return
        self._unended.pop(run_id, None)

    async def _beat(self) -> None:
        """Retry failed endings, renew this process's leases, stop runs it lost, sweep."""
        for run_id, ending in list(self._unended.items()):
            await self._end(run_id, ending)
        renewed = await self.store.renew_leases(self.instance_id, self.lease.until())
        driving = list(self._runs.values())
        for run in await lost_leases(self.store, self.instance_id, driving, renewed):
            logger.warning("run %s: another process took its lease over; stopping", run.run_id)
            run.lose_lease()
        # A cancel message may have been lost on the way: the database has every request.
        for row in await self.store.list_cancel_requested(self.instance_id):
            self._honour_cancel(row)
        await self.sweep_interrupted()

    async def _sweep_expired(self) -> None:
        await self.expire_suspensions()
        await self.request_rate.sweep()

    async def _settle_local(self, thread_id: str) -> None:
        """Let a segment of this process finish what it is doing (bounded)."""
        run = self._runs.get(thread_id)
        if run is not None and run.task is not None:
            await asyncio.wait([run.task], timeout=_SETTLE_SECONDS)

    async def _confirmation(self, owner: Owner, request_id: str) -> Confirmation:
        confirmation = await self.store.get_confirmation(request_id)
        if confirmation is None:
            raise ConfirmationNotFound(request_id)
        thread = await self.store.get_thread(
            confirmation.thread_id, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        if thread is None:
            raise ConfirmationNotFound(request_id)
        if confirmation.status != "pending":
            raise _answered_error(confirmation)
        return confirmation

    async def _answered(self, request_id: str) -> ConfirmationAnswered | ConfirmationExpired:
        """The error for a confirmation found answered: expired, or answered by someone."""
        confirmation = await self.store.get_confirmation(request_id)
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
            if await is_expired(self.finisher.checkpoints, run, judge=self.instance_id):
                await end_expired(self.finisher, run, owner=self.instance_id, lease=self.lease)
                raise ConfirmationExpired(confirmation.request_id) from exc
            raise ConfirmationAnswered(confirmation.request_id) from exc

    async def _cancel_suspended(self, run: RunRecord) -> None:
        """End a run that waits for confirmations. Its questions are answered first: a confirm
        racing the cancel either loses here or wins, and then the cancel is retried."""
        reason = USER_CANCELLED.reason
        if not await self.finisher.answer_pending(run.run_id, run.thread_id, reason):
            raise RunBusy(f"run {run.run_id} was just confirmed; retry the cancel")
        try:
            record = await self.store.take_over(
                run.run_id, self.instance_id, lease_until=self.lease.until()
            )
        except StaleLease:
            return  # closed meanwhile by someone else: nothing left to cancel
        ending = RunEnding("cancelled", reason)
        await self.finisher.finish(run.run_id, run.thread_id, ending, epoch=record.lease_epoch)


def _answered_error(confirmation: Confirmation) -> ConfirmationAnswered | ConfirmationExpired:
    if expired_answer(confirmation):
        return ConfirmationExpired(confirmation.request_id)
    return ConfirmationAnswered(confirmation.request_id)
