"""What the replicas hold open, counted from outside: file descriptors (``/proc/<pid>/fd``),
PostgreSQL sessions on their database (``pg_stat_activity``) and Redis clients (``CLIENT
LIST``). The soak counts them when the cluster is idle, before the load and after it."""

from __future__ import annotations

import os
import socket
from dataclasses import asdict, dataclass
from typing import Any

import asyncpg
from replicas import Cluster


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


async def over_other_sessions(database_url: str, counted: str) -> int:
    """``count(counted)`` over the sessions on the database of ``database_url`` other than the
    one asking: ``*`` counts them, ``pg_terminate_backend(pid)`` ends them too."""
    conn = await asyncpg.connect(database_url)
    try:
        count: int = await conn.fetchval(
            f"SELECT count({counted}) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return count
    finally:
        await conn.close()


def redis_clients(port: int) -> int:
    """Clients of the Redis server on ``port``, other than the one counting (one a line of
    ``CLIENT LIST``, read from its bulk-string reply)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"CLIENT LIST\r\n")
        reply = b""
        while not _complete(reply):
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("redis closed the connection mid-reply")
            reply += chunk
    header, _, body = reply.partition(b"\r\n")
    lines = body[: int(header[1:])].decode().splitlines()
    return len([line for line in lines if line.strip()]) - 1


def _complete(reply: bytes) -> bool:
    header, found, body = reply.partition(b"\r\n")
    return bool(found) and header.startswith(b"$") and len(body) >= int(header[1:]) + 2


@dataclass(frozen=True)
class Held:
    """What the cluster holds open at one moment."""

    fds: list[int]
    database_sessions: int
    redis_clients: int

    def as_figures(self) -> dict[str, Any]:
        return asdict(self)


async def held(group: Cluster, database_url: str, redis_port: int) -> Held:
    fds = [open_fds(r.process.pid) for r in group.replicas if r.process is not None]
    return Held(fds, await over_other_sessions(database_url, "*"), redis_clients(redis_port))
