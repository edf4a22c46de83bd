"""``Conversations``: threads and their messages, each thread owned by one tenant and user."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from runyard.messages import AgentMessage, CustomMessage
from runyard.storage.records import MessageCursor, Thread

__all__ = ["Conversations", "Message"]

Message = AgentMessage | CustomMessage


@runtime_checkable
class Conversations(Protocol):
    """Threads and their ordered message history, under the ownership rule of ``parts``."""

    async def save_thread(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Create the thread, or update it (None keeps title/metadata). Another owner's thread
        raises ``ThreadOwnershipError`` and is left untouched."""
        ...

    async def get_thread(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> Thread | None:
        """The thread if it exists and belongs to this tenant and resource."""
        ...

    async def list_threads(
        self, *, tenant_id: str, resource_id: str, limit: int | None = None
    ) -> list[Thread]:
        """The owner's threads, most recently updated first."""
        ...

    async def delete_thread(self, thread_id: str, *, tenant_id: str, resource_id: str) -> bool:
        """Delete the thread with its messages and, in a store that holds them, its events,
        plan, observations, cursor, embeddings and thread-scoped working memory. False when
        there was nothing of this owner's."""
        ...

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        """Set the title; False when the owner has no such thread."""
        ...

    async def save_messages(
        self, thread_id: str, messages: Sequence[Message], /, *, tenant_id: str, resource_id: str
    ) -> None:
        """Upsert by message id: a known id is replaced in place (keeping its insertion
        position), a new one appended. Creates the thread when missing."""
        ...

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
        """Messages ascending by ``created_at`` then insertion order. ``before`` keeps those with
        ``created_at < before``; ``after`` keeps those strictly after the cursor's message;
        ``limit`` keeps the last ``limit`` of what remains."""
        ...

    async def get_messages_by_ids(
        self, thread_id: str, message_ids: Sequence[str], *, tenant_id: str, resource_id: str
    ) -> list[Message]:
        """The named messages of this thread that exist, in thread order."""
        ...

    async def count_messages(self, thread_id: str, *, tenant_id: str, resource_id: str) -> int:
        """How many messages the thread holds (0 for another owner's thread)."""
        ...
