"""``RunOpener``: lets a new run in and opens its row — the part of a start before anything runs.

In order: the agent is chosen (an unknown one leaves nothing behind), the tenant's request rate
admits the request (``RateLimited``), then, under the thread's lock, the run starts in one
transaction (``start_run``): the thread claimed with the agent's choice in its metadata, the
run's row opened within the concurrency quotas (``ConcurrencyLimited``), the user's message
stored and the run's ``run-start`` logged. The database decides who opens (one open run per
thread); a refused or failed start stores nothing and gives its request back, so it is not
counted. A run that already told its clients it finished, or whose suspension expired, does not
block the thread: it is waited for, or ended here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from runyard.agent import Agent
from runyard.ids import new_id
from runyard.messages import AgentMessage
from runyard.service.agent_choice import AgentChoice, AgentDirectory, AgentRequest
from runyard.service.errors import ConcurrencyLimited, RunActive, ThreadNotFound
from runyard.service.limits import CONCURRENT_RUNS_RETRY_AFTER, TenantLimits, run_quota
from runyard.service.manager.driven_runs import SETTLE_SECONDS, DrivenRuns
from runyard.service.manager.keyed_lock import KeyedLock
from runyard.service.manager.request_rate import RequestRate
from runyard.service.manager.run_agent import choose_agent
from runyard.service.owner import Owner
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.suspension_expiry import end_expired, is_expired
from runyard.service.runs.finish import RunFinisher
from runyard.service.runs.segment import run_start
from runyard.storage import (
    DatabaseUnavailable,
    RunConflict,
    RunQuota,
    RunQuotaReached,
    RunStart,
    Store,
    ThreadOwnershipError,
)

__all__ = ["OpenedRun", "RunOpener"]


@dataclass(frozen=True, slots=True)
class OpenedRun:
    """A run whose row is open (held here at ``started.run.lease_epoch``), its thread's choice
    and its user's message stored, and nothing drives yet."""

    started: RunStart
    chosen: tuple[AgentChoice, Agent]


class RunOpener:
    """Opens new runs of ``store``'s threads, held under ``instance_id``."""

    def __init__(
        self,
        store: Store,
        directory: AgentDirectory,
        finisher: RunFinisher,
        runs: DrivenRuns,
        locks: KeyedLock,
        *,
        instance_id: str,
        lease: LeaseTerms,
        request_rate: RequestRate,
        tenant_limits: TenantLimits,
        cut_off: Callable[[str, BaseException], Awaitable[None]],
    ) -> None:
        self._store = store
        self._directory = directory
        self._finisher = finisher
        self._runs = runs
        self._locks = locks
        self._instance_id = instance_id
        self._lease = lease
        self._request_rate = request_rate
        self._tenant_limits = tenant_limits
        self._cut_off = cut_off
        """Settles a run whose start was cut off by a database outage (it may have committed)."""

    @asynccontextmanager
    async def open(
        self, owner: Owner, thread_id: str, request: AgentRequest, user: AgentMessage
    ) -> AsyncIterator[OpenedRun]:
        """Open the thread's next run on the agent ``request`` asks for, with the ``user``'s
        message stored (a client reloading mid-run sees what it asked); the thread stays locked
        until the block ends, which must drive the run or close its row."""
        key = owner.thread_key(thread_id)
        known = await self._store.get_thread(
            key, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        # Chosen before any run is opened, so an unknown agent leaves nothing behind.
        chosen = await choose_agent(self._directory, owner, known, request)
        choice = chosen[0]
        limits = self._directory.limits(owner.tenant_id, choice)
        admission = await self._request_rate.admit(
            owner.tenant_id, choice.agent_id, limits, self._tenant_limits
        )
        quota = run_quota(limits, self._tenant_limits)
        metadata = choice.recorded_in(known.metadata if known is not None else {})
        async with self._locks.hold(key):
            try:
                started = await self._start_run(owner, thread_id, choice, quota, metadata, user)
            except Exception:
                await admission.give_back()  # no run started: the request does not count
                raise
            yield OpenedRun(started, chosen)

    async def _start_run(
        self,
        owner: Owner,
        thread_id: str,
        choice: AgentChoice,
        quota: RunQuota | None,
        metadata: dict[str, Any],
        user: AgentMessage,
    ) -> RunStart:
        """Start the thread's run of the chosen agent within ``quota``; a run that already
        logged its ``run-finish`` is waited for."""
        key, run_id, agent_id = owner.thread_key(thread_id), new_id("run"), choice.agent_id
        for attempt in (1, 2):
            try:
                return await self._store.start_run(
                    run_id,
                    [user],
                    thread_id=key,
                    tenant_id=owner.tenant_id,
                    resource_id=owner.user_id,
                    owner=self._instance_id,
                    lease_until=self._lease.until(),
                    agent_id=agent_id,
                    quota=quota,
                    metadata=metadata,
                    opening=[run_start(run_id, user.id, choice)],
                )
            except ThreadOwnershipError as exc:
                # Only SDK code sharing the database could have made a thread under this key.
                raise ThreadNotFound(thread_id) from exc
            except DatabaseUnavailable as exc:
                # Its one write may have committed: then the run is settled as one whose
                # driver stopped, never left open and undriven.
                await self._cut_off(run_id, exc)
                raise
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
        run = await self._store.get_active_run(thread_id)
        if run is not None and await is_expired(
            self._finisher.checkpoints, run, judge=self._instance_id
        ):
            await end_expired(self._finisher, run, owner=self._instance_id, lease=self._lease)
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
            await self._runs.settle(thread_id)
            return True
        run = await self._store.get_active_run(thread_id)
        if run is None:
            return True
        last_id = await self._store.last_event_id(thread_id)
        last = await self._store.read_events(thread_id, after_id=max(last_id - 1, 0))
        if not any(e.type == "run-finish" and e.run_id == run.run_id for e in last):
            return False
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                # The close happens in another process: only the database can tell.
                while await self._store.get_active_run(thread_id) is not None:  # noqa: ASYNC110
                    await asyncio.sleep(0.02)
        except TimeoutError:
            return False
        return True
