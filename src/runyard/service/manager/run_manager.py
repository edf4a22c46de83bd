"""``RunManager``: runs per thread — start, confirm, cancel — as tasks this object owns.

The database decides every race (DESIGN.md §8): ``open_run`` lets exactly one run be open per
thread (running *or* suspended), ``answer_confirmation`` lets exactly one answer through, and
lease epochs fence a writer that was superseded. Within this process a per-thread lock
(``KeyedLock``) keeps start, confirm and cancel of one thread from interleaving.

``RunManager`` is a façade; each job is one collaborator of this package, and every run ends
through the one ``RunFinisher`` (``runs.finish``):

- ``RunOpener`` (``run_opener``) lets a new run in: chooses its agent (``run_agent``), admits it
  under the tenant's request rate (``RequestRate``) and concurrency quotas, claims the thread and
  opens the run's row;
- ``RunDriver`` (``run_driver``) drives runs: stores a new run's message and launches its first
  segment (or, with roles, queues it), resumes, carries on a run whose driver stopped, drives the
  runs a worker claims from the queue, and owns every segment's task (``DrivenRuns``); a run it
  cannot end right now is owed an ending (``OwedEndings``);
- ``LeaseKeeper`` (``lease_keeper``) keeps this process's leases on a heartbeat, stops a run whose
  lease another process took over, honours cancels recorded for its runs, sweeps the runs of
  dead processes and the suspensions whose checkpoint expired (``suspension_expiry``), and at
  close hands the runs still going over to the other processes;
- ``Confirmer`` (``confirmer``) answers a confirmation once and resumes its run (a suspension
  whose checkpoint expired is ended at once by a confirm, or by a new message, that meets it);
- ``Canceller`` (``canceller``) cancels a thread's open run, here or in another process
  (``remote_cancel``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runyard.agent import Agent
from runyard.config import Role
from runyard.messages import AgentMessage, ContentBlock, MediaPart, TextPart
from runyard.service.agent_choice import (
    AgentChoice,
    AgentDirectory,
    AgentRequest,
    FixedAgents,
    RunEntry,
)
from runyard.service.background.status import read_background_tasks
from runyard.service.content import ContentRules, FilesFor, check_content
from runyard.service.errors import ServiceStopping
from runyard.service.event_log import EventLog
from runyard.service.limits import TenantLimits
from runyard.service.manager.canceller import Canceller
from runyard.service.manager.confirmer import Confirmer
from runyard.service.manager.driven_runs import SETTLE_SECONDS, DrivenRuns
from runyard.service.manager.keyed_lock import KeyedLock
from runyard.service.manager.lease_keeper import LeaseKeeper
from runyard.service.manager.owed_endings import OwedEndings
from runyard.service.manager.request_rate import RequestRate
from runyard.service.manager.run_driver import RunDriver
from runyard.service.manager.run_opener import RunOpener
from runyard.service.owner import Owner
from runyard.service.ownership.leases import LeaseTerms, new_instance_id
from runyard.service.runs.checkpoints import RunCheckpoints
from runyard.service.runs.finish import RunFinisher
from runyard.service.threads.owned import owned_thread
from runyard.service.threads.views import ThreadStatus
from runyard.storage import Store
from runyard.telemetry.run_telemetry import RunTelemetry

__all__ = ["RunManager"]


class RunManager:
    """Starts, resumes and cancels runs; every run's task belongs to this object.

    ``agents`` chooses each run's agent: an ``AgentDirectory`` (``CatalogAgents`` routes by the
    catalog), or a mapping of names to agents where a thread runs ``default_agent`` unless a
    message names another. The choice is stored with the thread, and a confirm resumes on the
    agent the thread's run started with. ``instance`` is this process's instance id, the owner
    of its leases (default: ``<host name>-<random hex>``); a lease lasts ``lease_seconds``
    unless renewed (see ``keep_leases``), and every ``liveness_seconds`` (0: never) the process
    looks for siblings that died, to take their runs over at once (``DeathWatch``). ``titles`` turns thread-title generation on (it costs one small model
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
        liveness_seconds: float = 1.0,
        titles: bool = True,
        tenant_limits: TenantLimits | None = None,
        telemetry: RunTelemetry | None = None,
        role: Role = "all",
        worker_concurrency: int = 16,
        queue_poll_seconds: float = 1.0,
        files: FilesFor | None = None,
        content_rules: ContentRules | None = None,
    ) -> None:
        if isinstance(agents, Mapping):
            agents = FixedAgents(agents, default_agent or next(iter(agents), ""))
        self.store = store
        self.events = events
        self.directory: AgentDirectory = agents
        self.instance_id = new_instance_id(instance or "")
        self.lease = LeaseTerms(lease_seconds, liveness_seconds)
        self.titles = titles
        self.finisher = RunFinisher(store, events, RunCheckpoints(agents.loaded()))
        self.request_rate = RequestRate(store)
        """New runs per minute, per tenant and per (tenant, agent), counted in the store."""
        self.tenant_limits = tenant_limits or TenantLimits()
        self.telemetry = telemetry or RunTelemetry()
        """Where each run reports its spans (the server's traces, metrics and logs)."""
        self.role: Role = role
        self.files = files
        """The file store each caller's messages may name files of; None: no file store (a
        block naming a ``file_id`` is refused)."""
        self.content_rules = content_rules or ContentRules()
        self._closing = False
        self._runs = DrivenRuns()
        endings, locks = OwedEndings(), KeyedLock()
        self._driver = RunDriver(
            store,
            events,
            self.finisher,
            agents,
            self._runs,
            endings,
            instance_id=self.instance_id,
            lease=self.lease,
            role=role,
            titles=titles,
            telemetry=self.telemetry,
            worker_concurrency=worker_concurrency,
            queue_poll_seconds=queue_poll_seconds,
            files=files,
            content_rules=self.content_rules,
        )
        self._keeper = LeaseKeeper(
            store,
            events.bus,
            self.finisher,
            self._runs,
            endings,
            instance_id=self.instance_id,
            lease=self.lease,
            carry_on=self._driver.carry_on,
            request_rate=self.request_rate,
            worker=self._driver.worker,
        )
        self._opener = RunOpener(
            store,
            agents,
            self.finisher,
            self._runs,
            locks,
            instance_id=self.instance_id,
            lease=self.lease,
            request_rate=self.request_rate,
            tenant_limits=self.tenant_limits,
            cut_off=self._driver.settle_cut_off,
        )
        self._confirmer = Confirmer(
            store,
            events.bus,
            self.finisher,
            agents,
            self._runs,
            locks,
            instance_id=self.instance_id,
            lease=self.lease,
            role=role,
            resume=self._driver.launch_resume,
        )
        self._canceller = Canceller(
            store,
            events,
            self.finisher,
            self._runs,
            locks,
            instance_id=self.instance_id,
            lease=self.lease,
            sweep=self._keeper.sweep_interrupted,
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
        content: Sequence[ContentBlock] = (),
        content_field: str = "content",
        entry: RunEntry = "http",
    ) -> str:
        """Start a run for ``message``; its id. ``RunActive`` while the thread has an open run.

        ``content`` are blocks sent beside the text (or instead of it: ``message`` may then be
        empty), checked first (``ContentRefused`` and kin naming ``{content_field}.{index}``,
        docs/content.md): images, files, JSON.

        ``message_id`` is the user message's id (default: a new one); the run's ``run-start``
        names it, which is how a caller finds the run its message started (gRPC idempotency).

        ``agent`` names the agent (``UnknownAgent`` when there is none for the owner's tenant);
        ``version`` pins a version of it (``AgentVersionNotFound`` when it has none such);
        ``context`` is the caller's routing context (docs/catalog.md, "The invocation context").
        ``RateLimited`` when the tenant used up a ``requests_per_minute`` (the agent's, or its
        own), ``ConcurrencyLimited`` when as many of its runs are running as a
        ``concurrent_runs`` allows: checked before anything is stored, so a refused request
        leaves nothing behind and is not counted. ``ServiceStopping`` once ``aclose`` began.

        ``entry`` says how the run came in (``RunEntry``): its span's ``runyard.entry``, the
        ``entry`` label of ``runyard_runs_started_total`` and ``/status``'s ``entry``.
        """
        self._admit()
        await self.check_content(owner, content, content_field)
        request = AgentRequest(agent, context or {}, version, entry)
        text = [TextPart(text=message)] if message else []
        user = AgentMessage(
            role="user",
            parts=[*text, *content],
            **({} if message_id is None else {"id": message_id}),
        )
        async with self._opener.open(owner, thread_id, request, user) as opened:
            record = opened.started.run
            try:
                await self._driver.begin(opened.started, owner, opened.chosen, user)
            except BaseException as exc:
                # Nothing drives the run yet: close its row, or the thread stays blocked.
                await self._driver.fail_unlaunched(record, exc)
                raise
        await self.reference_files(owner, thread_id, content)
        return record.run_id

    async def check_content(
        self, owner: Owner, content: Sequence[ContentBlock], field: str = "content"
    ) -> None:
        """Refuse the first block ``owner`` cannot send (``ContentRefused`` and kin naming
        ``{field}.{index}``, docs/content.md): what ``start`` checks its ``content`` with, and a
        face the earlier messages of a conversation it stores."""
        files = self.files(owner) if self.files is not None else None
        await check_content(content, rules=self.content_rules, files=files, field=field)

    async def reference_files(
        self, owner: Owner, thread_id: str, content: Sequence[ContentBlock]
    ) -> None:
        """Record that ``owner``'s thread ``thread_id`` names the stored files of ``content``
        (deleting the thread deletes those only it names)."""
        files = self.files(owner) if self.files is not None else None
        if files is None:
            return
        for part in content:
            if isinstance(part, MediaPart) and part.file_id is not None:
                await files.reference(part.file_id, thread_id)

    async def confirm(self, owner: Owner, request_id: str, answer: dict[str, Any]) -> None:
        """Answer a ``confirmation-request`` once and resume its run from the checkpoint
        (``ServiceStopping`` once ``aclose`` began: another process resumes it)."""
        self._admit()
        await self._confirmer.confirm(owner, request_id, answer)

    async def cancel(self, owner: Owner, thread_id: str) -> bool:
        """End the thread's open run as ``cancelled``; False (a no-op) when nothing was open.

        Idempotent: an unknown thread (another owner's included) has nothing to cancel either.
        A run another process drives is cancelled through the database and that process
        (``remote_cancel``); this waits until it has ended, or for at most 10 s — the cancel
        stays recorded and its owner, or whoever takes the run over, honours it.
        """
        return await self._canceller.cancel(owner, thread_id)

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
        # The thread records its latest run's entry with its agent, when the run opens.
        choice = AgentChoice.stored(thread.metadata)
        entry = choice.entry if choice is not None else None
        return ThreadStatus(not waiting, waiting, run.run_id, tuple(tasks), entry)

    async def delete_thread(self, owner: Owner, thread_id: str) -> None:
        """Cancel whatever runs on the thread, then delete it with its messages and events."""
        await owned_thread(self.store, owner, thread_id)
        await self.cancel(owner, thread_id)
        await self.store.delete_thread(
            owner.thread_key(thread_id), tenant_id=owner.tenant_id, resource_id=owner.user_id
        )

    # -- custody ------------------------------------------------------------------------------

    async def keep_leases(self) -> list[str]:
        """Start-up, before the first run: sweep, then renew and sweep on every heartbeat.

        What a previous life of this instance id held (a restart with ``RUNYARD_INSTANCE_ID``
        set) is given up first, so it is swept now rather than renewed forever. Until
        ``aclose`` a heartbeat renews this process's leases every third of a lease, stops the
        runs whose lease another process took over, and sweeps. The ids swept at start-up.
        """
        return await self._keeper.keep_leases()

    async def sweep_interrupted(self) -> list[str]:
        """Settle the runs of other processes whose lease expired — their server stopped —
        (carried on here from their last durable step; suspended when they had already asked
        their questions; else closed); their ids."""
        return await self._keeper.sweep_interrupted()

    async def expire_suspensions(self) -> list[str]:
        """End the suspended runs whose checkpoint expired (``run-finish`` ``approval_expired``),
        of every process — exactly once however many sweep; the ids this call ended."""
        return await self._keeper.expire_suspensions()

    async def wait_idle(self, thread_key: str) -> None:
        """Wait until this process drives no segment of the thread stored under ``thread_key``
        (``Owner.thread_key``; tests, shutdown)."""
        await self._runs.wait_idle(thread_key)

    async def aclose(self, settle_seconds: float = SETTLE_SECONDS) -> None:
        """Stop taking runs and hand the ones still going over to the other processes.

        From now on ``start`` and ``confirm`` raise ``ServiceStopping``. The runs this process
        drives get ``settle_seconds`` to end (or suspend) by themselves while their leases are
        renewed (the shutdown passes its grace); then the heartbeat stops and every run still
        going is stopped *without being finished* — no ``run-finish``, no cancel — and its lease
        released, so the next sweep of any process (this one's next start included) takes it
        over at once.
        """
        self._closing = True
        await self._keeper.hand_over(settle_seconds)

    def _admit(self) -> None:
        if self._closing:
            raise ServiceStopping()
