"""The CPU PostgreSQL spends on one database: the user + system time of its backends.

On a machine of two cores the database is one of the processes a benchmark's runs compete
with, so the replicas' CPU per run is not the whole cost of a run. A backend is a process of
the PostgreSQL server (``pg_stat_activity.pid``); it is read from ``/proc``, so only a server
on this machine can be measured (elsewhere the figure is ``None``). Backends that ended between
two samples take their time with them: a connection pool keeps its connections, so the loss is
the pool's churn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import asyncpg
from _race_servers import tree_cpu_seconds

__all__ = ["Backends", "BackendsCpu"]

_PIDS = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"


@dataclass(frozen=True)
class Backends:
    """CPU seconds so far of every backend of the database, by pid."""

    cpu: dict[int, float]

    def since(self, earlier: Backends) -> float:
        """CPU seconds the backends used after ``earlier`` (a backend new since: all of its)."""
        return sum(seconds - earlier.cpu.get(pid, 0.0) for pid, seconds in self.cpu.items())


class BackendsCpu:
    """Samples the backends of the database at ``url``."""

    def __init__(self, url: str) -> None:
        self._url = url.replace("postgresql+asyncpg://", "postgresql://")

    async def sample(self) -> Backends | None:
        """Every backend's CPU so far; ``None`` when the server is not on this machine."""
        connection = await asyncpg.connect(self._url)
        try:
            pids = [row["pid"] for row in await connection.fetch(_PIDS)]
        finally:
            await connection.close()
        local = [pid for pid in pids if _is_postgres(pid)]
        if pids and not local:
            return None
        return Backends({pid: tree_cpu_seconds(pid) for pid in local})


def _is_postgres(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "postgres"
    except OSError:
        return False
