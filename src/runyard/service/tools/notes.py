"""``save_note`` and ``list_notes``: short notes kept for the thread's user across threads.

Notes live in the store's working-memory table, resource scope, under the dedicated resource
key ``notes:<user>`` (a JSON document ``{"notes": [{"id", "text"}]}``), so they need no table of
their own and never mix with the user's working memory. Saving requires approval.
"""

from __future__ import annotations

import json
from typing import Any

from runyard.ids import new_id
from runyard.runtime import MemoryScope
from runyard.service.tools.context import service_deps, thread_scope
from runyard.storage import WorkingMemoryTier
from runyard.tools import Tool, ToolContext, tool

__all__ = ["list_notes", "notes_key", "save_note"]

_MAX_NOTE = 2000


def notes_key(resource_id: str) -> str:
    """The working-memory resource id under which a user's notes are stored."""
    return f"notes:{resource_id}"


async def _read(store: WorkingMemoryTier, scope: MemoryScope) -> list[dict[str, Any]]:
    row = await store.get_working_memory(
        tenant_id=scope.tenant_id, resource_id=notes_key(scope.resource_id), scope="resource"
    )
    if row is None or not row.content:
        return []
    notes: list[dict[str, Any]] = json.loads(row.content).get("notes", [])
    return notes


async def _save_note(text: str, ctx: ToolContext) -> dict[str, str]:
    """Save a short note for the user; they can list it later in any conversation.

    Args:
        text: the note, in one or two sentences.
    """
    store, scope = service_deps(ctx).store, thread_scope(ctx)
    note = {"id": new_id("note"), "text": text[:_MAX_NOTE]}
    notes = [*await _read(store, scope), note]
    await store.save_working_memory(
        json.dumps({"notes": notes}),
        tenant_id=scope.tenant_id,
        resource_id=notes_key(scope.resource_id),
        scope="resource",
    )
    return note


async def _list_notes(ctx: ToolContext) -> dict[str, list[dict[str, Any]]]:
    """List the notes saved for the user, oldest first."""
    return {"notes": await _read(service_deps(ctx).store, thread_scope(ctx))}


save_note: Tool = tool(name="save_note", requires_approval=True)(_save_note)
list_notes: Tool = tool(name="list_notes")(_list_notes)
