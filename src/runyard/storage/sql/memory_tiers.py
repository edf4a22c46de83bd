"""Working memory, observations and plans of ``SqlStore``."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, delete, select, update

from runyard.ids import now_ms
from runyard.storage.records import (
    MemoryScope,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    WorkingMemory,
)
from runyard.storage.scopes import thread_key
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import (
    observation_cursors,
    observations,
    plans,
    threads,
    working_memory,
)
from runyard.storage.sql.state import SqlState
from runyard.storage.sql.upserts import insert_ignore

__all__ = ["MemoryTiersPart"]

_OBSERVATION_FIELDS = ("text", "created_at", "tokens", "marker", "parent_id", "metadata")


class _Condensed(Exception):
    """Raised inside a transaction to roll it back: another writer condensed these first."""


def _observation(row: Row[Any]) -> Observation:
    return Observation(
        row.id,
        row.thread_id,
        row.text,
        row.created_at,
        row.tokens,
        row.marker,
        row.parent_id,
        row.metadata,
    )


class MemoryTiersPart(SqlState):
    """The memory tiers above plain message history, each scoped to its owner."""

    async def get_working_memory(
        self,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory | None:
        key = thread_key(scope, thread_id)
        stmt = select(working_memory).where(
            working_memory.c.tenant_id == tenant_id,
            working_memory.c.resource_id == resource_id,
            working_memory.c.thread_id == key,
        )
        async with read(self._engine) as conn:
            if key and not await self._owned(conn, key, tenant_id, resource_id):
                return None
            row = (await conn.execute(stmt)).one_or_none()
        if row is None:
            return None
        return WorkingMemory(
            tenant_id, resource_id, scope, key or None, row.content, row.updated_at
        )

    async def save_working_memory(
        self,
        content: str,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory:
        key = thread_key(scope, thread_id)
        doc = WorkingMemory(tenant_id, resource_id, scope, key or None, content, now_ms())
        row = {
            "tenant_id": tenant_id,
            "resource_id": resource_id,
            "thread_id": key,
            "scope": scope,
            "content": content,
            "updated_at": doc.updated_at,
        }
        stmt = self._upsert(
            working_memory, ["tenant_id", "resource_id", "thread_id"], ["content", "updated_at"]
        )
        async with write(self._engine) as conn:
            if key:
                await self._claim(conn, key, tenant_id, resource_id)
            await conn.execute(stmt, row)
        return doc

    async def append_observations(
        self,
        thread_id: str,
        observations_: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            await self._insert_observations(conn, thread_id, observations_)

    async def list_observations(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> list[Observation]:
        stmt = (
            select(observations)
            .where(observations.c.thread_id == thread_id)
            .order_by(observations.c.created_at, observations.c.seq)
        )
        async with read(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return []
            return [_observation(row) for row in await conn.execute(stmt)]

    async def replace_observations(
        self,
        thread_id: str,
        observations_: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            await conn.execute(delete(observations).where(observations.c.thread_id == thread_id))
            await self._insert_observations(conn, thread_id, observations_)

    async def condense_observations(
        self,
        thread_id: str,
        observations_: Sequence[Observation],
        *,
        replaces: Sequence[str],
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        wanted = set(replaces)
        stmt = delete(observations).where(
            observations.c.thread_id == thread_id, observations.c.id.in_(wanted)
        )
        try:
            async with write(self._engine) as conn:
                await self._claim(conn, thread_id, tenant_id, resource_id)
                # A concurrent condenser's DELETE waits for this one's row locks, then finds
                # the rows gone: its count falls short and it rolls back.
                if (await conn.execute(stmt)).rowcount != len(wanted):
                    raise _Condensed
                await self._insert_observations(conn, thread_id, observations_)
        except _Condensed:
            return False
        return True

    async def _insert_observations(
        self, conn: SqlConnection, thread_id: str, rows: Sequence[Observation]
    ) -> None:
        if not rows:
            return
        values = [
            {
                "thread_id": thread_id,
                "id": o.id,
                "text": o.text,
                "created_at": o.created_at,
                "tokens": o.tokens,
                "marker": o.marker,
                "parent_id": o.parent_id,
                "metadata": o.metadata,
            }
            for o in rows
        ]
        await conn.execute(
            self._upsert(observations, ["thread_id", "id"], _OBSERVATION_FIELDS), values
        )

    async def get_observation_cursor(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor | None:
        stmt = select(observation_cursors).where(observation_cursors.c.thread_id == thread_id)
        async with read(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return None
            row = (await conn.execute(stmt)).one_or_none()
        if row is None:
            return None
        return ObservationCursor(thread_id, row.message_created_at, row.message_id, row.updated_at)

    async def set_observation_cursor(
        self, thread_id: str, cursor: MessageCursor, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor:
        saved = ObservationCursor(thread_id, cursor.created_at, cursor.message_id, now_ms())
        stmt = self._upsert(
            observation_cursors,
            ["thread_id"],
            ["message_created_at", "message_id", "updated_at"],
        )
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            await conn.execute(
                stmt,
                {
                    "thread_id": thread_id,
                    "message_created_at": saved.message_created_at,
                    "message_id": saved.message_id,
                    "updated_at": saved.updated_at,
                },
            )
        return saved

    async def advance_observations(
        self,
        thread_id: str,
        observations_: Sequence[Observation],
        *,
        cursor: MessageCursor,
        expected: MessageCursor | None,
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            if not await self._swap_cursor(conn, thread_id, cursor, expected):
                return False
            await self._insert_observations(conn, thread_id, observations_)
        return True

    async def _swap_cursor(
        self,
        conn: SqlConnection,
        thread_id: str,
        cursor: MessageCursor,
        expected: MessageCursor | None,
    ) -> bool:
        """Move the cursor only from ``expected``: one conditional statement, atomic in both
        dialects (a concurrent writer's row lock makes PostgreSQL re-check the condition)."""
        values = {
            "message_created_at": cursor.created_at,
            "message_id": cursor.message_id,
            "updated_at": now_ms(),
        }
        if expected is None:
            insert = insert_ignore(self._engine.dialect.name, observation_cursors)
            result = await conn.execute(insert, {"thread_id": thread_id, **values})
        else:
            result = await conn.execute(
                update(observation_cursors)
                .where(
                    observation_cursors.c.thread_id == thread_id,
                    observation_cursors.c.message_created_at == expected.created_at,
                    observation_cursors.c.message_id == expected.message_id,
                )
                .values(**values)
            )
        return bool(result.rowcount == 1)

    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        # One statement, the owner checked in the join: every run's start reads its plan.
        stmt = (
            select(plans.c.data, plans.c.updated_at)
            .join(threads, threads.c.id == plans.c.thread_id)
            .where(
                plans.c.thread_id == thread_id,
                threads.c.tenant_id == tenant_id,
                threads.c.resource_id == resource_id,
            )
        )
        async with read(self._engine) as conn:
            row = (await conn.execute(stmt)).one_or_none()
        return None if row is None else Plan(thread_id, row.data, row.updated_at)

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        plan = Plan(thread_id, data, now_ms())
        stmt = self._upsert(plans, ["thread_id"], ["data", "updated_at"])
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            await conn.execute(
                stmt, {"thread_id": thread_id, "data": data, "updated_at": plan.updated_at}
            )
        return Plan(thread_id, copy.deepcopy(data), plan.updated_at)
