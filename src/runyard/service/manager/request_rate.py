"""``RequestRate``: how many new runs a tenant starts per minute, of one agent and of all its
agents, counted in the store (``RateCounters``) so every replica on the database sees one count.

A sliding window of the last 60 seconds (exact to the second, see ``RateCounters``): a new run
is admitted while fewer than the limit were admitted in the window, and refused with
``RateLimited`` (and the seconds until one leaves the window) otherwise. A request that is
refused — by this limit, or after it by another (``Admission.give_back``) — is not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from runyard.ids import now_ms
from runyard.service.errors import RateLimited
from runyard.service.limits import AgentLimits, TenantLimits
from runyard.storage import RateCounters

__all__ = ["WINDOW_SECONDS", "Admission", "RequestRate"]

WINDOW_SECONDS = 60


@dataclass(frozen=True, slots=True)
class Admission:
    """The window slots one new run took, at ``taken_at`` (epoch ms)."""

    counters: RateCounters
    keys: tuple[str, ...]
    taken_at: int

    async def give_back(self) -> None:
        """Uncount the request: no run started after all."""
        for key in self.keys:
            await self.counters.return_rate_slot(key, taken_at=self.taken_at)


class RequestRate:
    """Admits or refuses new runs per tenant and per (tenant, agent); ``clock`` is epoch ms."""

    def __init__(self, counters: RateCounters, clock: Callable[[], int] = now_ms) -> None:
        self._counters = counters
        self._clock = clock

    async def admit(
        self, tenant: str, agent_id: str, agent: AgentLimits, tenants: TenantLimits
    ) -> Admission:
        """Count one new run of ``agent_id`` for ``tenant``; ``RateLimited`` (and nothing
        counted) when the last minute already holds the agent's or the tenant's limit."""
        now = self._clock()
        checks = (
            (f"agent:{tenant}/{agent_id}", agent.requests_per_minute, agent_id),
            (f"tenant:{tenant}", tenants.requests_per_minute, None),
        )
        taken: list[str] = []
        for key, limit, limited_agent in checks:
            if limit is None:
                continue
            wait_ms = await self._counters.take_rate_slot(
                key, limit=limit, window_seconds=WINDOW_SECONDS, now=now
            )
            if wait_ms is not None:
                await Admission(self._counters, tuple(taken), now).give_back()
                raise RateLimited(limited_agent, limit, max(math.ceil(wait_ms / 1000), 1))
            taken.append(key)
        return Admission(self._counters, tuple(taken), now)

    async def sweep(self) -> int:
        """Delete the counts that left every window; how many buckets went."""
        return await self._counters.sweep_rate_counters(self._clock() - WINDOW_SECONDS * 1000)
