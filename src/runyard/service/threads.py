"""``Threads``: what a client reads about its threads — the list, and the rich message history.

The history is folded from the thread's event log (one agent tree per run, the seed's session
restore) and carries ``nextEventId``: the id the next event will get. A client that renders the
history and then opens the event stream at ``nextEventId - 1`` sees every later event exactly
once, because the history is built from exactly the events up to that id.
"""

from __future__ import annotations

from typing import Any

from runyard.messages import AgentMessage
from runyard.protocol import RunFinishPayload, WireEvent, build_agent_trees, parse_event
from runyard.service.event_log import EventLog
from runyard.service.owned_threads import claim_thread, owned_thread
from runyard.service.owner import Owner
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

    async def messages(self, owner: Owner, thread_id: str, *, limit: int = 50) -> dict[str, Any]:
        """``{threadId, title, messages, nextEventId}``: the last ``limit`` messages."""
        thread = await self.get(owner, thread_id)
        log = await self.events.read_stored(thread.id)
        events = [parse_event(e.data) for e in log]
        created: dict[str | None, int] = {}
        for stored in log:
            created.setdefault(stored.run_id, stored.created_at)
        starts = _run_starts(events)
        users = {
            m.id: m
            for m in await self.store.get_messages_by_ids(
                thread.id,
                list(starts.values()),
                tenant_id=owner.tenant_id,
                resource_id=owner.user_id,
            )
            if isinstance(m, AgentMessage)
        }
        finished = {e.run_id: e.payload for e in events if e.type == "run-finish"}
        rows: list[dict[str, Any]] = []
        for run_id, tree in build_agent_trees(events).items():
            user = users.get(starts.get(run_id, ""))
            if user is not None:
                rows.append(_user_row(user, run_id))
            rows.append(
                {
                    "id": run_id,
                    "runId": run_id,
                    "role": "assistant",
                    "createdAt": created.get(run_id, 0),
                    "content": tree.text_content,
                    "reasoning": tree.reasoning,
                    "isStreaming": run_id not in finished,
                    "agentTree": tree.model_dump(mode="json"),
                    **_usage(finished.get(run_id)),
                }
            )
        return {
            "threadId": thread_id,
            "title": thread.title,
            "messages": rows[-limit:] if limit else [],
            "nextEventId": (log[-1].id if log else 0) + 1,
        }


def _run_starts(events: list[WireEvent]) -> dict[str, str]:
    return {e.run_id: e.payload.message_id for e in events if e.type == "run-start"}


def _usage(finish: RunFinishPayload | None) -> dict[str, Any]:
    """The run's ``usage`` as its ``run-finish`` reported it; nothing while it runs or if unknown."""
    if finish is None or finish.usage is None:
        return {}
    return {"usage": finish.usage.model_dump(mode="json")}


def _user_row(message: AgentMessage, run_id: str) -> dict[str, Any]:
    return {
        "id": message.id,
        "runId": run_id,
        "role": "user",
        "createdAt": message.created_at,
        "content": message.text,
        "reasoning": "",
        "isStreaming": False,
    }
