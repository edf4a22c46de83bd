"""Threads and messages of the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from runyard.storage.inmemory.json_copy import thread_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import Conversations, Message
from runyard.storage.records import MessageCursor, Thread

__all__ = ["ConversationsPart"]


class ConversationsPart(MemoryState, Conversations):
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
        return self._save_thread(thread_id, tenant_id, resource_id, title, metadata)

    async def get_thread(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> Thread | None:
        if not self._owned(thread_id, tenant_id, resource_id):
            return None
        return thread_copy(self._threads[thread_id])

    async def list_threads(
        self, *, tenant_id: str, resource_id: str, limit: int | None = None
    ) -> list[Thread]:
        mine = [
            t
            for t in self._threads.values()
            if (t.tenant_id, t.resource_id) == (tenant_id, resource_id)
        ]
        mine.sort(key=lambda t: (t.updated_at, t.id), reverse=True)
        return [thread_copy(t) for t in mine[:limit]]

    async def delete_thread(self, thread_id: str, *, tenant_id: str, resource_id: str) -> bool:
        if not self._owned(thread_id, tenant_id, resource_id):
            return False
        del self._threads[thread_id]
        for table in (
            self._messages,
            self._observations,
            self._cursors,
            self._plans,
            self._embeddings,
            self._events,
            self._snapshots,
        ):
            table.pop(thread_id, None)
        self._working.pop((tenant_id, resource_id, thread_id), None)
        await self._file_bytes.delete_bytes(self._drop_thread_files(thread_id))
        return True

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        if not self._owned(thread_id, tenant_id, resource_id):
            return False
        self._threads[thread_id] = replace(self._threads[thread_id], title=title)
        self._touch(thread_id)
        return True

    async def save_messages(
        self, thread_id: str, messages: Sequence[Message], *, tenant_id: str, resource_id: str
    ) -> None:
        self._save_messages(thread_id, messages, tenant_id, resource_id)

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
        ordered = self._ordered(thread_id, tenant_id, resource_id)
        if before is not None:
            ordered = [row for row in ordered if row[1].created_at < before]
        if after is not None:
            start = self._position_after(ordered, after)
            ordered = [row for row in ordered if (row[1].created_at, row[0]) > start]
        if limit is not None:
            ordered = ordered[-limit:] if limit > 0 else []
        return [message.model_copy(deep=True) for _, message in ordered]

    async def get_messages_by_ids(
        self, thread_id: str, message_ids: Sequence[str], *, tenant_id: str, resource_id: str
    ) -> list[Message]:
        wanted = set(message_ids)
        return [
            message.model_copy(deep=True)
            for _, message in self._ordered(thread_id, tenant_id, resource_id)
            if message.id in wanted
        ]

    async def count_messages(self, thread_id: str, *, tenant_id: str, resource_id: str) -> int:
        return len(self._ordered(thread_id, tenant_id, resource_id))

    def _ordered(
        self, thread_id: str, tenant_id: str, resource_id: str
    ) -> list[tuple[int, Message]]:
        if not self._owned(thread_id, tenant_id, resource_id):
            return []
        rows = self._messages.get(thread_id, {}).values()
        return sorted(rows, key=lambda row: (row[1].created_at, row[0]))

    @staticmethod
    def _position_after(rows: list[tuple[int, Message]], cursor: MessageCursor) -> tuple[int, int]:
        """(created_at, seq) of the cursor's message, or just past its time when it is gone."""
        for seq, message in rows:
            if message.id == cursor.message_id:
                return (message.created_at, seq)
        return (cursor.created_at, 2**63)
