"""``RunDriver``: launches the segments of the runs this process drives, and owns their tasks.

A segment is one stretch of a run (``RunSegment``): the first, from the user's message; a
resume, from a confirmation's answer; or a recovery, from the last durable step of a run whose
driver stopped. The driver stores a new run's message and launches it (with roles: logs its
opening and queues it), drives the runs a ``worker`` claims from the queue, and carries on a run
a sweep took over. A segment that broke outside its own error handling is finished here by the
``RunFinisher``; one stopped by a database outage is not over: it is carried on once the
database answers. An ending that fails is owed (``OwedEndings``) and retried on the heartbeat.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any

from runyard.agent import Agent, PreparedResume, StreamResult
from runyard.config import Role
from runyard.messages import AgentMessage
from runyard.protocol import ORCHESTRATOR_ID
from runyard.runtime import FileKeeper, RunJournal
from runyard.service.agent_choice import AgentChoice, AgentDirectory
from runyard.service.background.tasks import BACKGROUND_TASKS
from runyard.service.content import ContentRules, FilesFor, FileStore, ProducedFiles
from runyard.service.event_log import EventLog
from runyard.service.manager.driven_runs import DrivenRuns
from runyard.service.manager.owed_endings import OwedEndings
from runyard.service.manager.run_agent import thread_agent
from runyard.service.owner import Owner
from runyard.service.ownership.crash_sweep import DATABASE_UNAVAILABLE, RESTARTED, settle_held
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.queue import QueueWorker, queue_run
from runyard.service.ownership.remote_cancel import end_if_cancel_requested
from runyard.service.ownership.takeover import Takeover, plan_takeover
from runyard.service.runs.active import ActiveRun
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.service.runs.segment import RunSegment, SegmentStart, log_opening
from runyard.service.runs.telemetry_labels import telemetry_labels
from runyard.service.threads.owned import owned_thread
from runyard.service.tools import SERVICE_DEPS, ServiceDeps
from runyard.storage import RunRecord, RunStart, Store, Thread, database_unavailable
from runyard.telemetry import Telemetry
from runyard.telemetry.run_telemetry import RunTelemetry

__all__ = ["RunDriver"]

logger = logging.getLogger(__name__)


class RunDriver:
    """Drives runs of ``store`` held under ``instance_id``; each segment's task is in ``runs``.

    With ``role="worker"`` its ``worker`` claims queued runs, at most ``worker_concurrency``
    driven at once, looking at the queue at least every ``queue_poll_seconds``; else ``worker``
    is None. ``titles`` names a new thread from its first message.
    """

    def __init__(
        self,
        store: Store,
        events: EventLog,
        finisher: RunFinisher,
        directory: AgentDirectory,
        runs: DrivenRuns,
        endings: OwedEndings,
        *,
        instance_id: str,
        lease: LeaseTerms,
        role: Role,
        titles: bool,
        telemetry: RunTelemetry,
        worker_concurrency: int,
        queue_poll_seconds: float,
        files: FilesFor | None = None,
        content_rules: ContentRules | None = None,
    ) -> None:
        self._store = store
        self._content_rules = content_rules or ContentRules()
        self._events = events
        self._finisher = finisher
        self._directory = directory
        self._runs = runs
        self._endings = endings
        self._instance_id = instance_id
        self._lease = lease
        self._role = role
        self._titles = titles
        self._telemetry = telemetry
        self._files = files
        self.worker = (
            QueueWorker(
                store,
                events.bus,
                instance_id,
                slots=worker_concurrency,
                busy=lambda: len(runs),
                launch=self._run_claimed,
                lease=lease,
                poll_seconds=queue_poll_seconds,
            )
            if role == "worker"
            else None
        )
        """Claims queued runs and has them driven here (a ``worker`` only)."""

    async def begin(
        self,
        started: RunStart,
        owner: Owner,
        agent: tuple[AgentChoice, Agent],
        user: AgentMessage,
    ) -> None:
        """Launch the first segment of a run whose start stored its thread's agent, the user's
        message and its ``run-start`` (with roles: show its opening and queue it)."""
        (choice, chosen), record = agent, started.run
        run = ActiveRun(record.run_id, record.thread_id, owner, chosen, record.lease_epoch)
        if self._role != "all":
            await self._queue_start(run, started)
            return
        title_from = self._title_from(user, started.thread.title)
        opened = partial(self._first_stream, run, user, self._telemetry_of(run, choice))
        self._launch(run, SegmentStart(opened, title_from, started=started))

    def launch_resume(
        self, run: RunRecord, thread: Thread, agent: Agent, prepared: PreparedResume
    ) -> None:
        """Drive ``run`` (held here, running) on from the answer ``prepared`` checked."""
        active, telemetry = self._segment_of(run, Owner.of_key(run.thread_id), agent, thread)

        async def open_stream(journal: RunJournal) -> StreamResult:
            return await agent.resume_prepared(
                "stream",
                prepared,
                abort_signal=active.abort,
                deps=self._deps(active),
                files=self._files_of(active),
                produced_files=self._produced_of(active),
                telemetry=telemetry,
                journal=journal,
            )

        self._launch(active, SegmentStart(open_stream))

    async def carry_on(self, run: RunRecord) -> bool:
        """Carry on a run whose driver stopped (the sweep, or this process after a database
        outage, holds it at ``run.lease_epoch``): here, or — with roles — queued for a worker.
        False when it cannot be (the caller closes it)."""
        if self._role == "all":
            return await self._drive_recovered(run)
        await queue_run(self._store, self._events.bus, run.run_id, "recover", epoch=run.lease_epoch)
        return True

    async def settle_cut_off(self, run_id: str, cause: BaseException) -> None:
        """Settle the run whose start's one write was cut off by a database outage, if that
        write committed after all: as a run whose driver stopped (at epoch 1, where it opened)."""
        await self._stopped_by_outage(run_id, 1, cause)

    async def fail_unlaunched(self, record: RunRecord, cause: BaseException) -> None:
        """Finish a run that never started: its start logged its ``run-start``, so it ends as
        any run does, with ``run-finish`` (``error``). One stopped by a database outage is
        carried on from its message, if that was stored."""
        if database_unavailable(cause):
            await self._stopped_by_outage(record.run_id, record.lease_epoch, cause)
            return
        reason = f"the run could not start: {str(cause) or type(cause).__name__}"
        logger.error("run %s: %s", record.run_id, reason)
        close = partial(
            self._finisher.finish,
            record.run_id,
            record.thread_id,
            RunEnding("error", reason),
            epoch=record.lease_epoch,
            asked=False,
        )
        await asyncio.shield(self._endings.end(record.run_id, close))

    # -- launching ----------------------------------------------------------------------------

    def _launch(self, run: ActiveRun, start: SegmentStart) -> None:
        segment = RunSegment(run, start, self._store, self._events, self._finisher)
        self._runs.add(run)

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
                self._runs.drop(run)
                if self.worker is not None:
                    self.worker.wake()  # a slot came free

        run.task = asyncio.create_task(body(), name=f"runyard-run-{run.run_id}")

    def _segment_of(
        self, run: RunRecord, owner: Owner, agent: Agent, thread: Thread
    ) -> tuple[ActiveRun, Telemetry]:
        """The segment that drives ``run`` (held here at its epoch) on ``agent``, and the
        telemetry it reports to, labelled with the agent ``thread`` stored."""
        active = ActiveRun(run.run_id, run.thread_id, owner, agent, run.lease_epoch)
        return active, self._telemetry_of(active, AgentChoice.stored(thread.metadata))

    def _telemetry_of(self, run: ActiveRun, choice: AgentChoice | None) -> Telemetry:
        return self._telemetry.of(telemetry_labels(run, choice))

    def _deps(self, run: ActiveRun) -> dict[str, Any]:
        scope = run.owner.scope(run.thread_id)
        deps = ServiceDeps(
            self._store,
            run.agent,
            ORCHESTRATOR_ID,
            scope,
            self._directory,
            files=self._files_of(run),
            produced_files=self._produced_of(run),
        )
        return {SERVICE_DEPS: deps, BACKGROUND_TASKS: run.background}

    def _title_from(self, user: AgentMessage, title: str | None) -> AgentMessage | None:
        """What a new thread's title is made from: its first message (its text, or for content
        blocks alone their kinds: ``TitleWriter.name``)."""
        return user if self._titles and title is None else None

    def _files_of(self, run: ActiveRun) -> FileStore | None:
        """The stored files the run's messages may name: its owner's."""
        return self._files(run.owner) if self._files is not None else None

    def _produced_of(self, run: ActiveRun) -> FileKeeper | None:
        """Where the run keeps the large files it produces: its owner's store, referenced by
        its thread (None without a file store: they stay inline)."""
        files = self._files_of(run)
        if files is None:
            return None
        thread_id = run.owner.thread_id_of(run.thread_id)
        return ProducedFiles(files, thread_id, self._content_rules.max_inline_bytes)

    async def _queue_start(self, run: ActiveRun, started: RunStart) -> None:
        """Show the run's opening (clients see it started), then queue it for a worker."""
        async with self._events.writer(run.thread_id, known=started.last_event_id) as writer:
            await log_opening(writer, run, started)
            await writer.flush()
        await queue_run(self._store, self._events.bus, run.run_id, "start", epoch=run.epoch)

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
            files=self._files_of(run),
            produced_files=self._produced_of(run),
            telemetry=telemetry,
            journal=journal,
        )

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
            files=self._files_of(run),
            produced_files=self._produced_of(run),
            telemetry=telemetry,
            journal=journal,
        )

    # -- runs taken over, or claimed from the queue -------------------------------------------

    async def _drive_recovered(self, run: RunRecord) -> bool:
        """Carry on here, from its last durable step, a run whose driver stopped (held at
        ``run.lease_epoch``); False when it cannot be."""
        try:
            takeover = await plan_takeover(self._store, run)
            if takeover is None:
                return False
            owner = takeover.owner
            thread = await owned_thread(self._store, owner, owner.thread_id_of(run.thread_id))
            agent = await thread_agent(self._directory, owner, thread)
        except Exception as exc:
            if database_unavailable(exc):
                raise  # not a reason to close it: whoever settles it tries again
            logger.exception("run %s: cannot be carried on; closing it", run.run_id)
            return False
        record = await self._store.take_over(
            run.run_id, self._instance_id, lease_until=self._lease.until(), epoch=run.lease_epoch
        )
        active, telemetry = self._segment_of(record, owner, agent, thread)
        state, user = takeover.state, takeover.user
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
            if await end_if_cancel_requested(self._finisher, run):
                return
            if run.queued_work == "start":
                await self._start_claimed(run)
            elif run.queued_work == "resume":
                await self._resume_claimed(run)
            else:  # recover: as a sweep settles it, but driven here
                await settle_held(self._finisher, run, self._drive_recovered, RESTARTED)
        except Exception as exc:
            if database_unavailable(exc):
                await self._stopped_by_outage(run.run_id, run.lease_epoch, exc)
                return
            logger.exception("run %s: the queued run could not start", run.run_id)
            ending = RunEnding("error", f"the run could not start: {exc}", error=exc)
            finish = partial(
                self._finisher.finish, run.run_id, run.thread_id, ending, epoch=run.lease_epoch
            )
            await self._endings.end(run.run_id, finish)

    async def _start_claimed(self, run: RunRecord) -> None:
        """A queued start: its opening is logged; its agent answers the user from the start."""
        takeover = await plan_takeover(self._store, run)
        if takeover is None or takeover.user is None:
            raise RuntimeError("its user message is gone")
        owner, user = takeover.owner, takeover.user
        thread = await owned_thread(self._store, owner, owner.thread_id_of(run.thread_id))
        agent = await thread_agent(self._directory, owner, thread)
        active, telemetry = self._segment_of(run, owner, agent, thread)
        title_from = self._title_from(user, thread.title)
        opened = partial(self._first_stream, active, user, telemetry)
        self._launch(active, SegmentStart(opened, title_from=title_from))

    async def _resume_claimed(self, run: RunRecord) -> None:
        """A queued resume: the answer its confirmation stored carries it on."""
        request_id = run.queued_request_id
        confirmation = await self._store.get_confirmation(request_id) if request_id else None
        if confirmation is None or confirmation.answer is None:
            raise RuntimeError(f"the answer to {request_id} is gone")
        owner = Owner.of_key(run.thread_id)
        thread = await owned_thread(self._store, owner, owner.thread_id_of(run.thread_id))
        agent = await thread_agent(self._directory, owner, thread)
        prepared = await agent.prepare_resume(
            confirmation.answer, run_id=run.run_id, tool_call_id=confirmation.tool_call_id
        )
        self.launch_resume(run, thread, agent, prepared)

    # -- segments that stopped without ending their run ---------------------------------------

    async def _stopped_by_outage(self, run_id: str, epoch: int, cause: BaseException) -> None:
        """The run's driver (or its start) stopped because the database was away: the run is
        not over. It is settled as a sweep settles a dead process's run — carried on here from
        its last durable step, at a new epoch that fences whatever the stopped driver still had
        in flight — once the database answers (retried on every heartbeat); a run another
        process took meanwhile is left to it."""
        logger.warning("run %s: stopped, the database is away: %s", run_id, cause)
        settle = partial(self._carry_on_after_outage, run_id, epoch)
        await asyncio.shield(self._endings.end(run_id, settle))

    async def _carry_on_after_outage(self, run_id: str, epoch: int) -> None:
        record = await self._store.get_run(run_id)
        if record is None:
            return
        if not record.is_open or record.lease_epoch != epoch:
            return
        if await settle_held(self._finisher, record, self.carry_on, DATABASE_UNAVAILABLE):
            logger.warning("run %s: carried on after the database came back", run_id)

    async def _finish_broken(self, run: ActiveRun, cause: Exception) -> None:
        """Finish a run whose segment broke outside its own error handling: its clients still
        get a ``run-finish``, and its row is closed ``failed``."""
        ending = RunEnding("error", f"the run failed: {cause}", error=cause)
        finish = partial(self._finisher.finish, run.run_id, run.thread_id, ending, epoch=run.epoch)
        await self._endings.end(run.run_id, finish)
