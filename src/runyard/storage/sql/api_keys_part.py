"""API keys of ``SqlStore``: one row per key, read by its primary key on every verification."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from runyard.storage.errors import ApiKeyConflict
from runyard.storage.records import ApiKey
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import api_keys
from runyard.storage.sql.state import SqlState

__all__ = ["ApiKeysPart"]


def _api_key(row: Row[Any]) -> ApiKey:
    return ApiKey(
        row.key_id,
        row.secret_hash,
        row.tenant_id,
        row.user_id,
        row.role,
        row.name,
        row.created_at,
        row.expires_at,
        row.revoked_at,
        row.last_used_at,
    )


async def _read(conn: SqlConnection, key_id: str) -> ApiKey | None:
    stmt = select(api_keys).where(api_keys.c.key_id == key_id)
    row = (await conn.execute(stmt)).one_or_none()
    return None if row is None else _api_key(row)


class ApiKeysPart(SqlState):
    """Keys by id; revocation and use are conditional updates, so racing writers agree."""

    async def create_api_key(self, key: ApiKey) -> None:
        values = {
            "key_id": key.key_id,
            "secret_hash": key.secret_hash,
            "tenant_id": key.tenant_id,
            "user_id": key.user_id,
            "role": key.role,
            "name": key.name,
            "created_at": key.created_at,
            "expires_at": key.expires_at,
            "revoked_at": key.revoked_at,
            "last_used_at": key.last_used_at,
        }
        try:
            async with write(self._engine) as conn:
                await conn.execute(insert(api_keys).values(values))
        except IntegrityError as error:
            raise ApiKeyConflict(key.key_id) from error

    async def get_api_key(self, key_id: str) -> ApiKey | None:
        async with read(self._engine) as conn:
            return await _read(conn, key_id)

    async def list_api_keys(self, *, tenant_id: str | None = None) -> list[ApiKey]:
        stmt = select(api_keys).order_by(api_keys.c.created_at, api_keys.c.key_id)
        if tenant_id is not None:
            stmt = stmt.where(api_keys.c.tenant_id == tenant_id)
        async with read(self._engine) as conn:
            return [_api_key(row) for row in await conn.execute(stmt)]

    async def revoke_api_key(self, key_id: str, *, at: int) -> ApiKey | None:
        stmt = (
            update(api_keys)
            .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        async with write(self._engine) as conn:
            await conn.execute(stmt)
            return await _read(conn, key_id)

    async def mark_api_key_used(self, key_id: str, *, at: int) -> None:
        stmt = (
            update(api_keys)
            .where(
                api_keys.c.key_id == key_id,
                or_(api_keys.c.last_used_at.is_(None), api_keys.c.last_used_at < at),
            )
            .values(last_used_at=at)
        )
        async with write(self._engine) as conn:
            await conn.execute(stmt)
