"""``Threads``: what a client reads about its threads — the list, and the rich message history.

The history is one agent tree per run (the seed's session restore), read from run snapshots and
the log after them (``run_history``), a page of whole runs at a time. It carries
``nextEventId``: the id the next event will get. A client that renders the history and then
opens the event stream at ``nextEventId - 1`` sees every later event exactly once, because the
history is built from exactly the events up to that id.
"""

from __future__ import annotations

from typing import Any

from runyard.service.event_log import EventLog
from runyard.service.owner import Owner
from runyard.service.threads.history import RunHistory
from runyard.service.threads.owned import claim_thread, owned_thread
from runyard.storage import Store, Thread

__all__ = ["Threads", "thread_json"]


def thread_json(thread: Thread, owner: Owner) -> dict[str, Any]:
    """One of the owner's threads as the API shows it: under the id the client chose."""
    return {
        "id": owner.thread_id_of(thread.id),
        "title": thread.title,
        "createdAt": thread.created_at,
        "updatedAt": thread.updated_at,
    }


class Threads:
    """Reads of an owner's threads; another owner's thread is never found."""

    def __init__(self, events: EventLog, store: Store) -> None:
        self.events = events
        self.store = store
        self.history = RunHistory(store, store)

    async def list_threads(self, owner: Owner, *, limit: int | None = None) -> list[dict[str, Any]]:
        """The owner's threads, most recently updated first."""
        threads = await self.store.list_threads(
            tenant_id=owner.tenant_id, resource_id=owner.user_id, limit=limit
        )
        # Threads not under the owner's keys (SDK code sharing the database) are not the API's.
        return [thread_json(t, owner) for t in threads if owner.owns_key(t.id)]

    async def get(self, owner: Owner, thread_id: str) -> Thread:
        """The owner's thread (its ``id`` is the storage key); ``ThreadNotFound`` otherwise."""
        return await owned_thread(self.store, owner, thread_id)

    async def ensure(self, owner: Owner, thread_id: str) -> Thread:
        """The owner's thread, created when new (a client may listen before its first message).

        Read its events under the returned thread's ``id``, the owner's key for it.
        """
        return await claim_thread(self.store, owner, thread_id)

    async def messages(
        self, owner: Owner, thread_id: str, *, limit: int = 50, cursor: int | None = None
    ) -> dict[str, Any]:
        """``{threadId, title, messages, nextEventId, nextCursor?}``: the newest whole runs with
        at most ``limit`` messages — before ``cursor`` when given (a ``nextCursor`` of an earlier
        page), and then ``nextCursor`` is there while older runs remain."""
        thread = await self.get(owner, thread_id)
        page = await self.history.page(thread, owner, limit=limit, cursor=cursor)
        body: dict[str, Any] = {
            "threadId": thread_id,
            "title": thread.title,
            "messages": page.messages,
            "nextEventId": page.next_event_id,
        }
        if page.next_cursor is not None:
            body["nextCursor"] = str(page.next_cursor)
        return body
