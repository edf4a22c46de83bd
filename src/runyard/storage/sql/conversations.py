"""Threads and messages of ``SqlStore``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, and_, bindparam, delete, func, or_, select, update

from runyard.messages import any_message_adapter
from runyard.storage.protocol import Message
from runyard.storage.records import MessageCursor, Thread
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import read, read_one, write
from runyard.storage.sql.files_part import delete_thread_files
from runyard.storage.sql.schema import (
    embeddings,
    events,
    messages,
    observation_cursors,
    observations,
    plans,
    run_snapshots,
    threads,
    working_memory,
)
from runyard.storage.sql.state import SqlState

__all__ = ["ConversationsPart", "message_rows", "thread_of"]

_THREAD_TABLES = (
    messages,
    observations,
    observation_cursors,
    plans,
    embeddings,
    events,
    run_snapshots,
)


def thread_of(row: Row[Any]) -> Thread:
    """The ``Thread`` of a ``threads`` row."""
    return Thread(
        row.id,
        row.tenant_id,
        row.resource_id,
        row.title,
        row.metadata,
        row.created_at,
        row.updated_at,
    )


def message_rows(thread_id: str, messages_: Sequence[Message]) -> list[dict[str, Any]]:
    """The ``messages`` rows of ``messages_`` in the thread."""
    return [
        {
            "thread_id": thread_id,
            "id": message.id,
            "created_at": message.created_at,
            "data": any_message_adapter.dump_python(message, mode="json"),
        }
        for message in messages_
    ]


def _message(row: Row[Any]) -> Message:
    return any_message_adapter.validate_python(row.data)


class ConversationsPart(SqlState):
    """Thread rows with their owners, and each thread's ordered messages."""

    async def save_thread(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = title
        if metadata is not None:
            changes["metadata"] = metadata
        async with write(self._engine) as conn:
            return thread_of(
                await self._claim_touched(conn, thread_id, tenant_id, resource_id, changes)
            )

    async def get_thread(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> Thread | None:
        owner = {"p_thread": thread_id, "p_tenant": tenant_id, "p_resource": resource_id}
        row = (await read_one(self._engine, _THREAD, owner)).one_or_none()
        return None if row is None else thread_of(row)

    async def list_threads(
        self, *, tenant_id: str, resource_id: str, limit: int | None = None
    ) -> list[Thread]:
        stmt = (
            select(threads)
            .where(threads.c.tenant_id == tenant_id, threads.c.resource_id == resource_id)
            .order_by(threads.c.updated_at.desc(), threads.c.id.desc())
            .limit(limit)
        )
        async with read(self._engine) as conn:
            return [thread_of(row) for row in await conn.execute(stmt)]

    async def delete_thread(self, thread_id: str, *, tenant_id: str, resource_id: str) -> bool:
        async with write(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return False
            seqs = list(
                (
                    await conn.execute(
                        select(embeddings.c.seq).where(embeddings.c.thread_id == thread_id)
                    )
                ).scalars()
            )
            for table in _THREAD_TABLES:
                await conn.execute(delete(table).where(table.c.thread_id == thread_id))
            await conn.execute(
                delete(working_memory).where(
                    working_memory.c.tenant_id == tenant_id,
                    working_memory.c.resource_id == resource_id,
                    working_memory.c.thread_id == thread_id,
                )
            )
            await conn.execute(delete(threads).where(threads.c.id == thread_id))
            orphan_files = await delete_thread_files(conn, thread_id)
        await self._vectors.after_delete(seqs)
        if orphan_files:
            await self._file_bytes.delete_bytes(orphan_files)
        return True

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        async with write(self._engine) as conn:
            result = await conn.execute(
                update(threads)
                .where(*_owner_filter(thread_id, tenant_id, resource_id))
                .values(title=title)
            )
            if result.rowcount == 0:
                return False
            await self._touch(conn, thread_id)
            return True

    async def save_messages(
        self, thread_id: str, messages_: Sequence[Message], *, tenant_id: str, resource_id: str
    ) -> None:
        rows = message_rows(thread_id, messages_)
        async with write(self._engine) as conn:
            await self._claim_touched(conn, thread_id, tenant_id, resource_id)
            if rows:
                stmt = self._upsert(messages, ["thread_id", "id"], ["created_at", "data"])
                await conn.execute(stmt, rows)

    async def get_messages(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        limit: int | None = None,
        before: int | None = None,
        after: MessageCursor | None = None,
    ) -> list[Message]:
        stmt = select(messages.c.data).where(messages.c.thread_id == thread_id)
        if before is not None:
            stmt = stmt.where(messages.c.created_at < before)
        async with read(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return []
            if after is not None:
                stmt = stmt.where(await _after(conn, thread_id, after))
            return await _window(conn, stmt, limit)

    async def get_messages_by_ids(
        self, thread_id: str, message_ids: Sequence[str], *, tenant_id: str, resource_id: str
    ) -> list[Message]:
        stmt = (
            select(messages.c.data)
            .where(messages.c.thread_id == thread_id, messages.c.id.in_(list(message_ids)))
            .order_by(messages.c.created_at, messages.c.seq)
        )
        async with read(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return []
            return [_message(row) for row in await conn.execute(stmt)]

    async def count_messages(self, thread_id: str, *, tenant_id: str, resource_id: str) -> int:
        stmt = select(func.count()).select_from(messages).where(messages.c.thread_id == thread_id)
        async with read(self._engine) as conn:
            if not await self._owned(conn, thread_id, tenant_id, resource_id):
                return 0
            return int((await conn.execute(stmt)).scalar_one())


_THREAD = prepared(
    select(threads).where(
        threads.c.id == bindparam("p_thread"),
        threads.c.tenant_id == bindparam("p_tenant"),
        threads.c.resource_id == bindparam("p_resource"),
    )
)
"""A thread as its owner reads it: every run's start reads it (docs/storage.md, ``prepared``)."""


def _owner_filter(thread_id: str, tenant_id: str, resource_id: str) -> tuple[Any, ...]:
    return (
        threads.c.id == thread_id,
        threads.c.tenant_id == tenant_id,
        threads.c.resource_id == resource_id,
    )


async def _after(conn: SqlConnection, thread_id: str, cursor: MessageCursor) -> Any:
    """Strictly after the cursor's message; just past its time when the message is gone."""
    found = (
        await conn.execute(
            select(messages.c.created_at, messages.c.seq).where(
                messages.c.thread_id == thread_id, messages.c.id == cursor.message_id
            )
        )
    ).one_or_none()
    if found is None:
        return messages.c.created_at > cursor.created_at
    return or_(
        messages.c.created_at > found.created_at,
        and_(messages.c.created_at == found.created_at, messages.c.seq > found.seq),
    )


async def _window(conn: SqlConnection, stmt: Select[Any], limit: int | None) -> list[Message]:
    """Ascending thread order; with ``limit``, only the last ``limit`` rows."""
    if limit is None:
        ordered = stmt.order_by(messages.c.created_at, messages.c.seq)
        return [_message(row) for row in await conn.execute(ordered)]
    if limit <= 0:
        return []
    newest = stmt.order_by(messages.c.created_at.desc(), messages.c.seq.desc()).limit(limit)
    return [_message(row) for row in reversed((await conn.execute(newest)).all())]
