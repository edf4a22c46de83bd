"""Checkpoints of ``SqlStore``: suspended runs' states by key, each with an optional expiry."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, or_, select

from runyard.ids import now_ms
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import checkpoints
from runyard.storage.sql.state import SqlState

__all__ = ["CheckpointsPart"]


class CheckpointsPart(SqlState):
    """Run checkpoints; an expired one reads as absent and a sweep deletes it."""

    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        row = {"key": key, "state": state, "expires_at": expires_at, "updated_at": now_ms()}
        stmt = self._upsert(checkpoints, ["key"], ["state", "expires_at", "updated_at"])
        async with write(self._engine) as conn:
            await conn.execute(stmt, row)

    async def load_checkpoint(self, key: str, *, now: int | None = None) -> dict[str, Any] | None:
        at = now_ms() if now is None else now
        stmt = select(checkpoints.c.state).where(
            checkpoints.c.key == key,
            or_(checkpoints.c.expires_at.is_(None), checkpoints.c.expires_at > at),
        )
        async with read(self._engine) as conn:
            state: dict[str, Any] | None = (await conn.execute(stmt)).scalar_one_or_none()
        return state

    async def delete_checkpoint(self, key: str) -> None:
        async with write(self._engine) as conn:
            await conn.execute(delete(checkpoints).where(checkpoints.c.key == key))

    async def sweep_expired_checkpoints(self, now: int) -> int:
        stmt = delete(checkpoints).where(checkpoints.c.expires_at <= now)
        async with write(self._engine) as conn:
            result = await conn.execute(stmt)
        return int(result.rowcount)
