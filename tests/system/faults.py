"""The soak's faults, in turn on a fixed cadence: kill -9 of a replica (started again at once),
a Redis restart (SIGKILL, every connection dropped), and PostgreSQL dropping every connection of
the replicas (``pg_terminate_backend``, as an administrator or a failover does)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

from idle_resources import over_other_sessions
from private_services import PrivateRedis
from replicas import Cluster

KINDS = ("kill", "redis", "postgres")


@dataclass
class Faults:
    group: Cluster
    redis: PrivateRedis
    database_url: str
    victim: int
    """The replica killed each time: the others live through the whole soak, so their memory
    is one process's from start to end."""
    done: Counter[str] = field(default_factory=Counter)
    down: set[int] = field(default_factory=set)
    """Replicas being restarted, which cannot answer a probe yet."""
    sessions_dropped: int = 0
    restart_seconds: list[float] = field(default_factory=list)
    """How long the killed replica took to answer ``/readyz`` again, each time."""

    async def inject(self, kind: str) -> None:
        if kind == "kill":
            replica = self.group.replicas[self.victim]
            self.down.add(self.victim)
            await asyncio.to_thread(replica.kill)
            started = time.monotonic()
            await asyncio.to_thread(replica.start)
            await asyncio.to_thread(replica.wait_ready)
            self.down.discard(self.victim)
            self.restart_seconds.append(round(time.monotonic() - started, 1))
        elif kind == "redis":
            await asyncio.to_thread(self.redis.restart)
        else:
            self.sessions_dropped += await over_other_sessions(
                self.database_url, "pg_terminate_backend(pid)"
            )
        self.done[kind] += 1

    async def every(self, interval: float, until: float) -> None:
        """One fault each ``interval`` seconds (the soak's cadence, not a wait for something to
        happen), in turn, while a whole interval is left before ``until``."""
        turn = 0
        while time.monotonic() + interval < until:
            await asyncio.sleep(interval)
            await self.inject(KINDS[turn % len(KINDS)])
            turn += 1
