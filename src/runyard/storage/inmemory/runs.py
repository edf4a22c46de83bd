"""Runs and their leases of the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from runyard.ids import now_ms
from runyard.storage.errors import (
    RunConflict,
    RunNotFound,
    StaleLease,
    StorageError,
    ThreadOwnershipError,
)
from runyard.storage.inmemory.json_copy import json_copy, thread_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import Message, RunLedger
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    OpeningEvent,
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

__all__ = ["RunLedgerPart"]


class RunLedgerPart(MemoryState, RunLedger):
    """Runs by id, at most one open per thread, each changed only under its current lease."""

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
        run = self._opening(run_id, thread_id, tenant_id, owner, status, lease_until, agent_id)
        self._check_quota(run, quota)
        self._runs[run_id] = run
        return run

    async def start_run(
        self,
        run_id: str,
        messages: Sequence[Message],
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
        # Every refusal is raised before anything changes, as a rolled-back transaction.
        known = self._threads.get(thread_id)
        if known is not None and (known.tenant_id, known.resource_id) != (tenant_id, resource_id):
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
        run = self._opening(run_id, thread_id, tenant_id, owner, "running", lease_until, agent_id)
        self._check_quota(run, quota)
        self._save_thread(thread_id, tenant_id, resource_id, metadata=metadata)
        self._runs[run_id] = run
        self._save_messages(thread_id, messages, tenant_id, resource_id)
        thread = thread_copy(self._threads[thread_id])  # as stored: the messages touched it
        log_end = max(self._events.get(thread_id, {}), default=0)
        opened = opening_events(run, log_end, opening)
        for event in opened:
            self._keep_event(thread_id, event)
        snapshots = self._snapshots.get(thread_id, {}).values()
        plan = self._plans.get(thread_id)
        return RunStart(
            run,
            thread,
            log_end,
            max((s.last_event_id for s in snapshots), default=0),
            None if plan is None else replace(plan, data=json_copy(plan.data)),
            opened,
        )

    def _opening(
        self,
        run_id: str,
        thread_id: str,
        tenant_id: str,
        owner: str,
        status: RunStatus,
        lease_until: int | None,
        agent_id: str | None,
    ) -> RunRecord:
        """The run ``open_run`` would insert; ``RunConflict`` or ``StorageError`` as it says."""
        if self._runs.open_on(thread_id) is not None:
            raise RunConflict(thread_id)
        if run_id in self._runs:
            raise StorageError(f"run id {run_id!r} is already taken")
        return new_run(
            run_id,
            thread_id=thread_id,
            tenant_id=tenant_id,
            owner=owner,
            status=status,
            lease_until=lease_until,
            agent_id=agent_id,
        )

    def _check_quota(self, run: RunRecord, quota: RunQuota | None) -> None:
        if quota is None:
            return
        running = [
            r
            for r in self._runs.open_runs()
            if r.tenant_id == run.tenant_id and r.status in RUNNING_OR_QUEUED
        ]
        mine = sum(r.agent_id == run.agent_id for r in running)
        check_quota(quota, tenant_running=len(running), agent_running=mine)

    async def get_run(self, run_id: str) -> RunRecord | None:
        return self._runs.get(run_id)

    async def get_active_run(self, thread_id: str) -> RunRecord | None:
        return self._runs.open_on(thread_id)

    async def list_open_runs(self, *, tenant_id: str | None = None) -> list[RunRecord]:
        runs = [r for r in self._runs.open_runs() if tenant_id in (None, r.tenant_id)]
        return sorted(runs, key=lambda r: (r.started_at, r.run_id))

    async def update_run_status(self, run_id: str, status: RunStatus, *, epoch: int) -> RunRecord:
        check_open_status(status)
        return self._fenced_update(run_id, epoch, status=status)

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
        self._fence(run_id, epoch)  # refused before anything changes, as a rolled-back write
        for thread_id in {e.thread_id for e in final_events}:
            self._check_new_events(thread_id, [e for e in final_events if e.thread_id == thread_id])
        run = self._fenced_update(run_id, epoch, status=status, reason=reason, finished_at=now_ms())
        self._progress.pop(run_id, None)
        self._tool_calls.pop(run_id, None)
        for event in final_events:
            self._keep_event(event.thread_id, event)
        if snapshot is not None:
            self._save_snapshots(snapshot.thread_id, [snapshot])
        return run

    async def take_over(
        self,
        run_id: str,
        new_owner: str,
        *,
        lease_until: int | None = None,
        epoch: int | None = None,
    ) -> RunRecord:
        run = self._open_run(run_id)
        if epoch is not None and run.lease_epoch != epoch:
            raise StaleLease(f"run {run_id!r} lease epoch {epoch} superseded by {run.lease_epoch}")
        return self._take(run, new_owner, lease_end(lease_until))

    async def renew_leases(self, owner: str, until: int) -> list[str]:
        held = [r for r in self._runs.values() if r.lease_owner == owner and r.is_open]
        for run in held:
            self._runs[run.run_id] = replace(run, lease_expires_at=until)
        return sorted(run.run_id for run in held)

    async def list_expired_runs(self, now: int) -> list[RunRecord]:
        expired = [r for r in self._runs.values() if _expired(r, now)]
        return sorted(expired, key=lambda r: (r.started_at, r.run_id))

    async def lease_owners(self, now: int) -> list[str]:
        return sorted({r.lease_owner for r in self._runs.open_runs() if _leased(r, now)})

    async def expire_leases(self, owner: str, now: int) -> list[str]:
        held = [r for r in self._runs.open_runs() if r.lease_owner == owner and _leased(r, now)]
        for run in held:
            self._runs[run.run_id] = replace(run, lease_expires_at=now)
        return sorted(run.run_id for run in held)

    async def take_over_expired(
        self, run_id: str, new_owner: str, *, now: int, lease_until: int
    ) -> RunRecord | None:
        run = self._runs.get(run_id)
        if run is None or not _expired(run, now):
            return None
        return self._take(run, new_owner, lease_until)

    async def request_cancel(self, run_id: str, *, at: int) -> RunRecord | None:
        run = self._runs.get(run_id)
        if run is None or not run.is_open:
            return None
        if run.cancel_requested_at is None:
            run = self._runs[run_id] = replace(run, cancel_requested_at=at)
        return run

    async def list_cancel_requested(self, owner: str) -> list[RunRecord]:
        pending = [
            r
            for r in self._runs.values()
            if r.lease_owner == owner and r.is_open and r.cancel_requested_at is not None
        ]
        return sorted(pending, key=lambda r: (r.started_at, r.run_id))

    async def release_lease(self, run_id: str, *, epoch: int, now: int) -> bool:
        run = self._runs.get(run_id)
        if run is None or not run.is_open or run.lease_epoch != epoch:
            return False
        self._runs[run_id] = replace(run, lease_expires_at=now)
        return True

    def _take(self, run: RunRecord, new_owner: str, until: int) -> RunRecord:
        taken = replace(
            run, lease_owner=new_owner, lease_epoch=run.lease_epoch + 1, lease_expires_at=until
        )
        self._runs[run.run_id] = taken
        return taken

    def _open_run(self, run_id: str) -> RunRecord:
        run = self._runs.get(run_id)
        if run is None:
            raise RunNotFound(run_id)
        if run.status not in OPEN_RUN_STATUSES:
            raise StaleLease(f"run {run_id!r} is already {run.status}")
        return run

    def _fenced_update(self, run_id: str, epoch: int, **changes: Any) -> RunRecord:
        run = self._open_run(run_id)
        if run.lease_epoch != epoch:
            raise StaleLease(f"run {run_id!r} lease epoch {epoch} superseded by {run.lease_epoch}")
        run = replace(run, **changes)
        self._runs[run_id] = run
        return run


def _leased(run: RunRecord, now: int) -> bool:
    """Running, with a lease that has not ended by ``now``."""
    return run.status == "running" and run.lease_expires_at > now


def _expired(run: RunRecord, now: int) -> bool:
    """Running, with a lease that ended at or before ``now`` (suspended runs never expire)."""
    return run.status == "running" and run.lease_expires_at <= now
