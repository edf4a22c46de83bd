"""What ``InstanceLiveness`` holds on each SQL backend: a lock its process's death releases.

PostgreSQL: a session-level advisory lock (two keys: ``_SPACE`` and the instance id's hash) on a
connection of its own, kept for the process's life; PostgreSQL releases it the moment the
session ends, and ``pg_locks`` lists who holds one. The holder also writes its id in
``instances``: a row whose lock nobody holds is a process that died, while a process of an older
runyard, which has no row, is never judged by its absence (its runs wait for their lease). A
clean stop deletes the row; a dead instance's row goes once none of its leases is left to judge.

SQLite: an exclusive ``flock`` on ``<database>.instances/<hash>.lock``, which the kernel releases
when the process dies; a lock file that exists but can be locked belonged to a dead process.
Processes on one host share a SQLite file, so a lock on that host is enough.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import zlib
from collections.abc import Collection
from pathlib import Path
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from runyard.ids import now_ms

__all__ = ["InstanceLocks", "instance_locks_for"]

logger = logging.getLogger(__name__)

_SPACE = 0x7275
"""The first key of the two-key advisory locks instances hold (the quota locks use another)."""

_TRY_LOCK = text("SELECT pg_try_advisory_lock(:space, :key)")
_STILL_THERE = text("SELECT 1")
_REGISTER = text(
    "INSERT INTO instances (instance_id, held_since) VALUES (:instance, :now)"
    " ON CONFLICT (instance_id) DO UPDATE SET held_since = excluded.held_since"
)
_REGISTERED = text("SELECT instance_id FROM instances")
_FORGET = text("DELETE FROM instances WHERE instance_id = ANY(:gone)")
_HELD = text(
    "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = :space"
    " AND objsubid = 2 AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


class InstanceLocks(Protocol):
    """One backend's way to hold an instance id and see who lost theirs."""

    async def hold(self, instance_id: str) -> bool: ...

    async def dead(self, instance_ids: Collection[str]) -> set[str]: ...

    async def release(self) -> None: ...


def instance_locks_for(engine: AsyncEngine) -> InstanceLocks:
    """The locks of ``engine``'s backend (none for a SQLite database in memory)."""
    if engine.dialect.name == "postgresql":
        return AdvisoryInstanceLocks(engine)
    database = engine.url.database
    in_memory = not database or database == ":memory:" or database.startswith("file::memory:")
    return FileInstanceLocks(None if in_memory else Path(f"{database}.instances"))


def _key(instance_id: str) -> int:
    """The advisory lock's second key: 31 bits, so ``pg_locks.objid`` shows it unchanged."""
    return zlib.crc32(instance_id.encode()) & 0x7FFFFFFF


class AdvisoryInstanceLocks:
    """PostgreSQL: a session-level advisory lock per instance id, and its row in ``instances``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._session: AsyncConnection | None = None
        self._instance_id = ""

    async def hold(self, instance_id: str) -> bool:
        if self._session is not None:
            try:
                await self._session.execute(_STILL_THERE)
                await self._session.commit()
            except Exception:
                logger.warning("the session holding this instance's lock ended; taking it anew")
                await self._drop_session()
            else:
                return True
        session = await self._engine.connect()
        try:
            taken = await self._lock(session, instance_id)
        except BaseException:
            await session.close()
            raise
        if not taken:
            await session.close()
            logger.warning("another live process holds instance id %r", instance_id)
            return False
        self._session, self._instance_id = session, instance_id
        return True

    async def dead(self, instance_ids: Collection[str]) -> set[str]:
        async with self._engine.connect() as conn:
            held = {int(row.objid) for row in await conn.execute(_HELD, {"space": _SPACE})}
            registered = [row.instance_id for row in await conn.execute(_REGISTERED)]
            dead = {instance for instance in registered if _key(instance) not in held}
            if gone := sorted(dead.difference(instance_ids)):
                await conn.execute(_FORGET, {"gone": gone})  # no lease of theirs is left
            await conn.commit()
        return dead.intersection(instance_ids)

    async def release(self) -> None:
        if self._session is not None:
            with contextlib.suppress(Exception):
                await self._session.execute(_FORGET, {"gone": [self._instance_id]})
                await self._session.commit()
        await self._drop_session()

    async def _lock(self, session: AsyncConnection, instance_id: str) -> bool:
        """Take the instance's lock on ``session`` and register it; False if another holds it."""
        lock = {"space": _SPACE, "key": _key(instance_id)}
        if not (await session.execute(_TRY_LOCK, lock)).scalar_one():
            await session.commit()
            return False
        await session.execute(_REGISTER, {"instance": instance_id, "now": now_ms()})
        await session.commit()  # the lock is the session's: it outlives the transaction
        return True

    async def _drop_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()


class FileInstanceLocks:
    """SQLite: an exclusive ``flock`` on a file per instance id beside the database."""

    def __init__(self, folder: Path | None) -> None:
        self._folder = folder
        self._held: tuple[int, Path] | None = None

    async def hold(self, instance_id: str) -> bool:
        if self._folder is None:
            return False
        if self._held is not None:
            return True
        self._folder.mkdir(parents=True, exist_ok=True)
        path = self._path(instance_id)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if not _locked(fd):
            os.close(fd)
            logger.warning("another live process holds instance id %r", instance_id)
            return False
        self._held = (fd, path)
        return True

    async def dead(self, instance_ids: Collection[str]) -> set[str]:
        if self._folder is None:
            return set()
        return {instance_id for instance_id in instance_ids if self._released(instance_id)}

    async def release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            fd, path = held
            path.unlink(missing_ok=True)  # before the unlock: nobody sees it free and judges
            os.close(fd)

    def _released(self, instance_id: str) -> bool:
        """The instance's lock file exists and nobody holds it: its process died."""
        try:
            fd = os.open(self._path(instance_id), os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            return _locked(fd)  # closing the descriptor below lets the lock go at once
        finally:
            os.close(fd)

    def _path(self, instance_id: str) -> Path:
        assert self._folder is not None
        return self._folder / f"{hashlib.sha256(instance_id.encode()).hexdigest()[:32]}.lock"


def _locked(fd: int) -> bool:
    """Take ``fd``'s exclusive lock if nobody holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
