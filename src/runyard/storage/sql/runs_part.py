"""Runs of ``SqlStore``: one open per thread, leases with an expiry and an epoch."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Row,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from runyard.ids import now_ms
from runyard.storage.errors import (
    EventIdConflict,
    RunConflict,
    RunNotFound,
    StaleLease,
    StorageError,
)
from runyard.storage.parts import Message
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    OpeningEvent,
    Plan,
    QueuedWork,
    RunQuota,
    RunRecord,
    RunSnapshot,
    RunStart,
    RunStatus,
    StoredEvent,
)
from runyard.storage.run_rules import (
    RUNNING_OR_QUEUED,
    check_close_status,
    check_open_status,
    check_quota,
    lease_end,
    new_run,
    opening_events,
)
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.conversations import message_rows, thread_of
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import read, read_one, write, write_one
from runyard.storage.sql.grouped_event_inserts import INSERT_EVENTS
from runyard.storage.sql.journal_writes import progress_key
from runyard.storage.sql.log_part import event_rows
from runyard.storage.sql.schema import (
    checkpoints,
    events,
    messages,
    plans,
    run_snapshots,
    runs,
    tool_ledger,
)
from runyard.storage.sql.snapshots_part import SNAPSHOT_COLUMNS, snapshot_rows
from runyard.storage.sql.state import SqlState

__all__ = ["RunsPart"]

_T = TypeVar("_T")
_Started = tuple[Row[Any], Row[Any], tuple[StoredEvent, ...]]
"""What a start's transaction read and wrote: the thread's row, its ends, the opening events."""


def _run(row: Row[Any]) -> RunRecord:
    return RunRecord(
        row.run_id,
        row.thread_id,
        row.tenant_id,
        row.status,
        row.lease_owner,
        row.lease_epoch,
        row.reason,
        row.started_at,
        row.finished_at,
        row.lease_expires_at,
        row.agent_id,
        row.cancel_requested_at,
        row.queued_work,
        row.queued_request_id,
        row.queued_at,
    )


_OPEN = runs.c.status.in_(OPEN_RUN_STATUSES)

# The statements of every run's start and end, built once (``prepared``: docs/storage.md).
_INSERT_RUN = prepared(insert(runs))
_OF_THREAD: BindParameter[str] = bindparam("p_thread")
_OF_PLAN = plans.c.thread_id == _OF_THREAD
# What a run's start reads of its thread, in one statement (one round trip, not three): the
# log's end, the snapshots' end and the plan. The thread is the caller's (claimed before, in
# the same transaction): no owner join.
_THREAD_ENDS = prepared(
    select(
        select(func.max(events.c.id))
        .where(events.c.thread_id == _OF_THREAD)
        .scalar_subquery()
        .label("log_end"),
        select(func.max(run_snapshots.c.last_event_id))
        .where(run_snapshots.c.thread_id == _OF_THREAD)
        .scalar_subquery()
        .label("snapshots_end"),
        select(plans.c.data).where(_OF_PLAN).scalar_subquery().label("plan_data"),
        select(plans.c.updated_at).where(_OF_PLAN).scalar_subquery().label("plan_updated_at"),
    )
)
_CLOSE = prepared(
    update(runs)
    .where(runs.c.run_id == bindparam("p_run"), runs.c.lease_epoch == bindparam("p_epoch"), _OPEN)
    .values(
        status=bindparam("p_status"),
        reason=bindparam("p_reason"),
        finished_at=bindparam("p_finished_at"),
    )
    .returning(runs)
)
_DROP_PROGRESS = prepared(delete(checkpoints).where(checkpoints.c.key == bindparam("p_key")))
_DROP_LEDGER = prepared(delete(tool_ledger).where(tool_ledger.c.run_id == bindparam("p_run")))


def _expired(now: int) -> ColumnElement[bool]:
    """Running, with a lease that ended at or before ``now`` (suspended runs never expire)."""
    return and_(runs.c.status == "running", runs.c.lease_expires_at <= now)


_QUOTA_LOCK_SPACE = 0x7175
"""The first key of PostgreSQL's two-key advisory locks that queue a tenant's quota checks (the
second is the tenant's hash); two-key locks never meet the migrations' one-key lock."""

_OPEN_ATTEMPTS = 5
"""Inserts tried while the thread's open run keeps closing under them before one is a conflict."""


class RunsPart(SqlState):
    """Run rows with leases, and the queue of those waiting for a worker (``RunQueue``)."""

    async def open_run(
        self,
        run_id: str,
        *,
        thread_id: str,
        tenant_id: str,
        owner: str,
        status: RunStatus = "running",
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
    ) -> RunRecord:
        for _ in range(_OPEN_ATTEMPTS):
            run = new_run(
                run_id,
                thread_id=thread_id,
                tenant_id=tenant_id,
                owner=owner,
                status=status,
                lease_until=lease_until,
                agent_id=agent_id,
            )
            try:
                async with write(self._engine) as conn:
                    await self._insert_run(conn, run, quota)
            except IntegrityError as exc:
                # The indexes decided; only now is it safe to ask why. The thread's open run
                # may have closed since the insert failed: then the insert is simply retried.
                await self._refusal(run_id, thread_id, exc)
            else:
                return run
        raise RunConflict(thread_id)

    async def start_run(
        self,
        run_id: str,
        messages_: Sequence[Message],
        /,
        *,
        thread_id: str,
        tenant_id: str,
        resource_id: str,
        owner: str,
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
        metadata: dict[str, Any] | None = None,
        opening: Sequence[OpeningEvent] = (),
    ) -> RunStart:
        changes = {} if metadata is None else {"metadata": metadata}
        rows = message_rows(thread_id, messages_)
        of_thread = {"p_thread": thread_id}
        for _ in range(_OPEN_ATTEMPTS):
            run = new_run(
                run_id,
                thread_id=thread_id,
                tenant_id=tenant_id,
                owner=owner,
                status="running",
                lease_until=lease_until,
                agent_id=agent_id,
            )

            async def body(conn: SqlConnection, run: RunRecord = run) -> _Started:
                thread = await self._claim_touched(conn, thread_id, tenant_id, resource_id, changes)
                await self._insert_run(conn, run, quota)
                if rows:
                    stmt = self._upsert(messages, ["thread_id", "id"], ["created_at", "data"])
                    await conn.execute(stmt, rows)
                ends = (await conn.execute(_THREAD_ENDS, of_thread)).one()
                opened = opening_events(run, int(ends.log_end or 0), opening)
                if opened:
                    await conn.execute(INSERT_EVENTS, event_rows(opened))
                return thread, ends, opened

            try:
                thread, ends, opened = await self._written(body)
            except IntegrityError as exc:
                # Also an opening event's id another writer took since the log's end was read:
                # nothing is left of this attempt, so the next one numbers from the new end.
                await self._refusal(run_id, thread_id, exc)
            else:
                kept = None
                if ends.plan_updated_at is not None:  # NOT NULL: a plan row exists
                    kept = Plan(thread_id, ends.plan_data, ends.plan_updated_at)
                log_end, snapshots_end = int(ends.log_end or 0), int(ends.snapshots_end or 0)
                return RunStart(run, thread_of(thread), log_end, snapshots_end, kept, opened)
        raise RunConflict(thread_id)

    async def _insert_run(
        self, conn: SqlConnection, run: RunRecord, quota: RunQuota | None
    ) -> None:
        """Insert the open ``run`` within ``quota``; the indexes refuse a second open run of its
        thread (``IntegrityError``)."""
        if quota is not None:
            await self._check_quota(conn, quota, run)
        await conn.execute(_INSERT_RUN, _run_values(run))

    async def _check_quota(self, conn: SqlConnection, quota: RunQuota, run: RunRecord) -> None:
        """Count the tenant's running runs inside the opening transaction. SQLite's write
        transactions already take turns; on PostgreSQL a lock per tenant makes racing openers
        queue, so each counts what the one before it inserted (READ COMMITTED reads anew). A
        thread with an open run is left to the insert: its conflict is the answer, not the quota."""
        if self._engine.dialect.name == "postgresql":
            lock = func.pg_advisory_xact_lock(_QUOTA_LOCK_SPACE, func.hashtext(run.tenant_id))
            await conn.execute(select(lock))
        running = runs.c.status.in_(RUNNING_OR_QUEUED)
        stmt = select(
            func.coalesce(func.sum(case((running, 1), else_=0)), 0),
            func.coalesce(
                func.sum(case((and_(running, runs.c.agent_id == run.agent_id), 1), else_=0)), 0
            ),
            func.coalesce(func.sum(case((runs.c.thread_id == run.thread_id, 1), else_=0)), 0),
        ).where(runs.c.tenant_id == run.tenant_id, _OPEN)
        tenant_running, agent_running, thread_open = (await conn.execute(stmt)).one()
        if not thread_open:
            check_quota(quota, tenant_running=tenant_running, agent_running=agent_running)

    async def _refusal(self, run_id: str, thread_id: str, exc: IntegrityError) -> None:
        """Raise why the insert of ``run_id`` was refused; return when the reason is gone."""
        active = select(runs.c.run_id).where(runs.c.thread_id == thread_id, _OPEN)
        used = select(runs.c.run_id).where(runs.c.run_id == run_id)
        async with read(self._engine) as conn:
            blocking, taken = await conn.scalar(active), await conn.scalar(used)
        if blocking is not None:
            raise RunConflict(thread_id) from exc
        if taken is not None:
            raise StorageError(f"run id {run_id!r} is already taken") from exc

    async def get_run(self, run_id: str) -> RunRecord | None:
        stmt = select(runs).where(runs.c.run_id == run_id)
        row = (await read_one(self._engine, stmt)).one_or_none()
        return None if row is None else _run(row)

    async def get_active_run(self, thread_id: str) -> RunRecord | None:
        stmt = select(runs).where(runs.c.thread_id == thread_id, _OPEN)
        row = (await read_one(self._engine, stmt)).one_or_none()
        return None if row is None else _run(row)

    async def list_open_runs(self, *, tenant_id: str | None = None) -> list[RunRecord]:
        stmt = select(runs).where(_OPEN).order_by(runs.c.started_at, runs.c.run_id)
        if tenant_id is not None:
            stmt = stmt.where(runs.c.tenant_id == tenant_id)
        return [_run(row) for row in await read_one(self._engine, stmt)]

    async def update_run_status(self, run_id: str, status: RunStatus, *, epoch: int) -> RunRecord:
        check_open_status(status)
        return await self._fenced_update(run_id, epoch, {"status": status})

    async def close_run(
        self,
        run_id: str,
        status: RunStatus,
        *,
        epoch: int,
        reason: str | None = None,
        final_events: Sequence[StoredEvent] = (),
        snapshot: RunSnapshot | None = None,
    ) -> RunRecord:
        check_close_status(status)
        closing = {"p_status": status, "p_reason": reason, "p_finished_at": now_ms()}
        try:
            row = await self._close(run_id, epoch, closing, final_events, snapshot)
        except IntegrityError as exc:
            raise EventIdConflict(f"event id reused in run {run_id!r}'s thread") from exc
        if row is None:
            raise await self._why_not(run_id, epoch)
        return _run(row)

    async def _close(
        self,
        run_id: str,
        epoch: int,
        closing: dict[str, Any],
        final_events: Sequence[StoredEvent],
        snapshot: RunSnapshot | None,
    ) -> Row[Any] | None:
        """``close_run``'s transaction; None when the row was not open at ``epoch``."""

        async def body(conn: SqlConnection) -> Row[Any] | None:
            row: Row[Any] | None = (
                await conn.execute(_CLOSE, {"p_run": run_id, "p_epoch": epoch, **closing})
            ).one_or_none()
            if row is not None:
                if final_events:
                    await conn.execute(INSERT_EVENTS, event_rows(final_events))
                await conn.execute(_DROP_PROGRESS, {"p_key": progress_key(run_id)})
                await conn.execute(_DROP_LEDGER, {"p_run": run_id})
                if snapshot is not None:
                    stmt = self._upsert(run_snapshots, ["thread_id", "run_id"], SNAPSHOT_COLUMNS)
                    await conn.execute(stmt, snapshot_rows(snapshot.thread_id, [snapshot]))
            return row

        return await self._written(body)

    async def _written(self, body: Callable[[SqlConnection], Awaitable[_T]]) -> _T:
        """``body`` run in a write transaction: on SQLite the loop turn's shared one
        (``GroupedEventInserts.run``), where a run's start and close join the event rows."""
        if self._engine.dialect.name == "sqlite":
            return await self._event_rows.run(body)
        async with write(self._engine) as conn:
            return await body(conn)

    async def take_over(
        self,
        run_id: str,
        new_owner: str,
        *,
        lease_until: int | None = None,
        epoch: int | None = None,
    ) -> RunRecord:
        condition = _OPEN if epoch is None else and_(_OPEN, runs.c.lease_epoch == epoch)
        row = await self._take(run_id, new_owner, lease_end(lease_until), condition)
        if row is None:
            raise await self._why_not(run_id, epoch)
        return row

    async def renew_leases(self, owner: str, until: int) -> list[str]:
        stmt = (
            update(runs)
            .where(runs.c.lease_owner == owner, _OPEN)
            .values(lease_expires_at=until)
            .returning(runs.c.run_id)
        )
        return sorted((await write_one(self._engine, stmt)).scalars())

    async def list_expired_runs(self, now: int) -> list[RunRecord]:
        stmt = select(runs).where(_expired(now)).order_by(runs.c.started_at, runs.c.run_id)
        return [_run(row) for row in await read_one(self._engine, stmt)]

    async def lease_owners(self, now: int) -> list[str]:
        stmt = (
            select(runs.c.lease_owner)
            .distinct()
            .where(runs.c.status == "running", runs.c.lease_expires_at > now)
        )
        return [row.lease_owner for row in await read_one(self._engine, stmt)]

    async def expire_leases(self, owner: str, now: int) -> list[str]:
        stmt = (
            update(runs)
            .where(
                runs.c.lease_owner == owner,
                runs.c.status == "running",
                runs.c.lease_expires_at > now,
            )
            .values(lease_expires_at=now)
            .returning(runs.c.run_id)
        )
        return [row.run_id for row in await write_one(self._engine, stmt)]

    async def take_over_expired(
        self, run_id: str, new_owner: str, *, now: int, lease_until: int
    ) -> RunRecord | None:
        return await self._take(run_id, new_owner, lease_until, _expired(now))

    async def request_cancel(self, run_id: str, *, at: int) -> RunRecord | None:
        requested = func.coalesce(runs.c.cancel_requested_at, at)
        stmt = (
            update(runs)
            .where(runs.c.run_id == run_id, _OPEN)
            .values(cancel_requested_at=requested)
            .returning(runs)
        )
        row = (await write_one(self._engine, stmt)).one_or_none()
        return None if row is None else _run(row)

    async def list_cancel_requested(self, owner: str) -> list[RunRecord]:
        stmt = (
            select(runs)
            .where(runs.c.lease_owner == owner, _OPEN, runs.c.cancel_requested_at.is_not(None))
            .order_by(runs.c.started_at, runs.c.run_id)
        )
        return [_run(row) for row in await read_one(self._engine, stmt)]

    async def release_lease(self, run_id: str, *, epoch: int, now: int) -> bool:
        stmt = (
            update(runs)
            .where(runs.c.run_id == run_id, runs.c.lease_epoch == epoch, _OPEN)
            .values(lease_expires_at=now)
            .returning(runs.c.run_id)
        )
        return (await write_one(self._engine, stmt)).scalar_one_or_none() is not None

    async def queue_run(
        self, run_id: str, work: QueuedWork, *, epoch: int, request_id: str | None = None
    ) -> RunRecord:
        changes = {
            "status": "queued",
            "queued_work": work,
            "queued_request_id": request_id,
            "queued_at": now_ms(),
        }
        return await self._fenced_update(run_id, epoch, changes)

    async def claim_queued_runs(
        self, owner: str, *, limit: int, lease_until: int
    ) -> list[RunRecord]:
        queued = runs.c.status == "queued"
        # Rows another claimer has locked are skipped, not waited for (SQLite, whose writers
        # take turns anyway, renders no FOR UPDATE). Picked first, then updated by id: a
        # LIMIT inside the UPDATE's own WHERE may be evaluated more than once.
        oldest = (
            select(runs.c.run_id)
            .where(queued)
            .order_by(runs.c.queued_at, runs.c.run_id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        claim = update(runs).values(
            status="running",
            lease_owner=owner,
            lease_epoch=runs.c.lease_epoch + 1,
            lease_expires_at=lease_until,
        )
        async with write(self._engine) as conn:
            picked = list(await conn.scalars(oldest))
            if not picked:
                return []
            stmt = claim.where(runs.c.run_id.in_(picked), queued).returning(runs)
            claimed = [_run(row) for row in await conn.execute(stmt)]
        return sorted(claimed, key=lambda run: (run.queued_at or 0, run.run_id))

    async def _take(
        self, run_id: str, new_owner: str, until: int, condition: ColumnElement[bool]
    ) -> RunRecord | None:
        """Give the run to ``new_owner`` at the next epoch if ``condition`` holds, atomically."""
        stmt = (
            update(runs)
            .where(runs.c.run_id == run_id, condition)
            .values(
                lease_owner=new_owner,
                lease_epoch=runs.c.lease_epoch + 1,
                lease_expires_at=until,
            )
            .returning(runs)
        )
        row = (await write_one(self._engine, stmt)).one_or_none()
        return None if row is None else _run(row)

    async def _fenced_update(self, run_id: str, epoch: int, changes: dict[str, Any]) -> RunRecord:
        """Apply ``changes`` only while the run is open and ``epoch`` is still current."""
        row = (await write_one(self._engine, _fenced(run_id, epoch).values(changes))).one_or_none()
        if row is None:
            raise await self._why_not(run_id, epoch)
        return _run(row)

    async def _why_not(self, run_id: str, epoch: int | None) -> StorageError:
        run = await self.get_run(run_id)
        if run is None:
            return RunNotFound(run_id)
        if not run.is_open:
            return StaleLease(f"run {run_id!r} is already {run.status}")
        return StaleLease(f"run {run_id!r} lease epoch {epoch} superseded by {run.lease_epoch}")


def _fenced(run_id: str, epoch: int) -> Any:
    """The update of the run's row while it is open at ``epoch``, returning the row."""
    return (
        update(runs)
        .where(runs.c.run_id == run_id, runs.c.lease_epoch == epoch, _OPEN)
        .returning(runs)
    )


def _run_values(run: RunRecord) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "thread_id": run.thread_id,
        "tenant_id": run.tenant_id,
        "status": run.status,
        "lease_owner": run.lease_owner,
        "lease_epoch": run.lease_epoch,
        "reason": run.reason,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "lease_expires_at": run.lease_expires_at,
        "agent_id": run.agent_id,
        "cancel_requested_at": run.cancel_requested_at,
        "queued_work": run.queued_work,
        "queued_request_id": run.queued_request_id,
        "queued_at": run.queued_at,
    }
