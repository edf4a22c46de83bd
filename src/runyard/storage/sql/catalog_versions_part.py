"""Catalog agent versions of ``SqlStore``: versions by hash, activations, the revision row."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, delete, select

from runyard.ids import now_ms
from runyard.storage.records import AgentActivation, AgentVersion
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import (
    SHARED_TENANT,
    agent_activations,
    agent_versions,
    catalog_revision,
)
from runyard.storage.sql.state import SqlState
from runyard.storage.sql.upserts import insert_ignore, insert_of

__all__ = ["CatalogVersionsPart"]


def _tenant(tenant: str | None) -> str:
    return SHARED_TENANT if tenant is None else tenant


def _scope(stored: str) -> str | None:
    return None if stored == SHARED_TENANT else stored


def _version(row: Row[Any]) -> AgentVersion:
    return AgentVersion(
        row.version,
        row.agent_id,
        _scope(row.tenant),
        row.spec,
        row.origin,
        row.source,
        row.created_at,
    )


class CatalogVersionsPart(SqlState):
    """Agent versions stored once by hash; activations move the one-row revision counter."""

    async def save_agent_version(self, version: AgentVersion) -> bool:
        row = {
            "version": version.version,
            "tenant": _tenant(version.tenant),
            "agent_id": version.agent_id,
            "spec": version.spec,
            "origin": version.origin,
            "source": version.source,
            "created_at": version.created_at,
        }
        stmt = insert_ignore(self._engine.dialect.name, agent_versions)
        async with write(self._engine) as conn:
            return int((await conn.execute(stmt, row)).rowcount) == 1

    async def get_agent_version(self, version: str) -> AgentVersion | None:
        stmt = select(agent_versions).where(agent_versions.c.version == version)
        async with read(self._engine) as conn:
            row = (await conn.execute(stmt)).one_or_none()
        return None if row is None else _version(row)

    async def list_agent_versions(self, agent_id: str, tenant: str | None) -> list[AgentVersion]:
        stmt = (
            select(agent_versions)
            .where(
                agent_versions.c.tenant == _tenant(tenant),
                agent_versions.c.agent_id == agent_id,
            )
            .order_by(agent_versions.c.created_at, agent_versions.c.version)
        )
        async with read(self._engine) as conn:
            return [_version(row) for row in await conn.execute(stmt)]

    async def activate_agent_version(
        self, agent_id: str, tenant: str | None, version: str
    ) -> int | None:
        known = select(agent_versions.c.version).where(
            agent_versions.c.version == version,
            agent_versions.c.tenant == _tenant(tenant),
            agent_versions.c.agent_id == agent_id,
        )
        row = {
            "tenant": _tenant(tenant),
            "agent_id": agent_id,
            "version": version,
            "activated_at": now_ms(),
        }
        stmt = self._upsert(agent_activations, ["tenant", "agent_id"], ["version", "activated_at"])
        async with write(self._engine) as conn:
            if (await conn.execute(known)).one_or_none() is None:
                return None
            await conn.execute(stmt, row)
            return await self._next_revision(conn)

    async def deactivate_agent(self, agent_id: str, tenant: str | None) -> int | None:
        stmt = delete(agent_activations).where(
            agent_activations.c.tenant == _tenant(tenant),
            agent_activations.c.agent_id == agent_id,
        )
        async with write(self._engine) as conn:
            if (await conn.execute(stmt)).rowcount == 0:
                return None
            return await self._next_revision(conn)

    async def agent_activations(self) -> list[AgentActivation]:
        stmt = select(agent_activations).order_by(
            agent_activations.c.tenant, agent_activations.c.agent_id
        )
        async with read(self._engine) as conn:
            return [
                AgentActivation(row.agent_id, _scope(row.tenant), row.version, row.activated_at)
                for row in await conn.execute(stmt)
            ]

    async def catalog_revision(self) -> int:
        stmt = select(catalog_revision.c.revision).where(catalog_revision.c.id == 1)
        async with read(self._engine) as conn:
            return int((await conn.execute(stmt)).scalar_one_or_none() or 0)

    async def _next_revision(self, conn: SqlConnection) -> int:
        # The row is written by the first activation: no row reads as revision 0.
        insert = insert_of(self._engine.dialect.name, catalog_revision).values(id=1, revision=1)
        stmt = insert.on_conflict_do_update(
            index_elements=["id"], set_={"revision": catalog_revision.c.revision + 1}
        ).returning(catalog_revision.c.revision)
        return int((await conn.execute(stmt)).scalar_one())
