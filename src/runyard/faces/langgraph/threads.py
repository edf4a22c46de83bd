"""``/langgraph/threads``: the caller's runyard threads as LangGraph threads — create, get,
update (metadata), delete, search (their state and history: ``state_routes``).

A thread id is the client's, per user, as on ``/v1`` (``threads.create`` without one makes a
UUID). ``supersteps`` and ``ttl`` are refused (422 naming them): a runyard thread is written only
by its runs, and kept until deleted.
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``thread_routes``.

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from runyard.faces.face_runs import pending_questions
from runyard.faces.invalid_body import invalid_field
from runyard.faces.langgraph.error_shape import langgraph_errors
from runyard.faces.langgraph.path_ids import ThreadId
from runyard.faces.langgraph.refusals import ThreadExists
from runyard.faces.langgraph.thread_state import (
    METADATA_KEY,
    folded,
    thread_body,
)
from runyard.faces.wiring import FaceWiring
from runyard.ids import THREAD_ID_PATTERN
from runyard.service import Owner, ServiceParts, Threads
from runyard.storage import Thread

__all__ = ["thread_routes"]


class ThreadCreate(BaseModel):
    """``threads.create``."""

    model_config = ConfigDict(extra="ignore", strict=True)

    thread_id: str | None = Field(default=None, pattern=THREAD_ID_PATTERN)
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] = "raise"
    supersteps: list[dict[str, Any]] | None = None
    ttl: dict[str, Any] | None = None


class ThreadPatch(BaseModel):
    """``threads.update``: its metadata (merged)."""

    model_config = ConfigDict(extra="ignore", strict=True)

    metadata: dict[str, Any] = Field(default_factory=dict)
    ttl: dict[str, Any] | None = None


class ThreadSearch(BaseModel):
    """``threads.search`` / ``count``."""

    model_config = ConfigDict(extra="ignore", strict=True)

    metadata: dict[str, Any] | None = None
    ids: list[str] | None = None
    status: Literal["idle", "busy", "interrupted", "error"] | None = None
    values: dict[str, Any] | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["thread_id", "status", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None


async def read_thread(parts: ServiceParts, owner: Owner, thread_id: str) -> dict[str, Any]:
    """The ``Thread``, with its values."""
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    values, _ = await folded(parts, owner, thread)
    status = await parts.runs.status(owner, thread_id)
    questions = await pending_questions(parts, thread.id)
    return thread_body(thread_id, thread, status, values, questions)


def _metadata_matches(thread: dict[str, Any], search: ThreadSearch) -> bool:
    wanted = search.metadata or {}
    return all(thread["metadata"].get(key) == value for key, value in wanted.items())


def thread_routes(api: APIRouter, wiring: FaceWiring) -> None:
    """Add the thread routes to ``api``."""
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    errors = langgraph_errors(wiring.errors)(400, 401, 404, 409, 422, 503)

    @api.post("/threads", responses=errors)
    async def create_thread(
        body: ThreadCreate, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """Create the thread (``thread_id``, else a UUID) with its ``metadata``; 409 when the
        caller has it already, unless ``if_exists`` is ``do_nothing``."""
        return await _create(parts, owner, body)

    @api.get("/threads/{thread_id:langgraph_name}", responses=errors)
    async def get_thread(thread_id: ThreadId, parts: parts_dep, owner: owner_dep) -> dict[str, Any]:
        """The thread with its values (``{"messages": [...]}``) and ``status``."""
        return await read_thread(parts, owner, thread_id)

    @api.patch("/threads/{thread_id:langgraph_name}", responses=errors)
    async def update_thread(
        thread_id: ThreadId, body: ThreadPatch, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """Merge ``metadata`` into the thread's."""
        return await _update(parts, owner, thread_id, body)

    @api.delete("/threads/{thread_id:langgraph_name}", status_code=204, responses=errors)
    async def delete_thread(thread_id: ThreadId, parts: parts_dep, owner: owner_dep) -> Response:
        """Cancel the thread's run, then delete the thread with its messages and events (as
        ``DELETE /v1/threads/{threadId}``)."""
        await parts.runs.delete_thread(owner, thread_id)
        return Response(status_code=204)

    @api.post("/threads/search", responses=errors)
    async def search_threads(
        body: ThreadSearch, parts: parts_dep, owner: owner_dep
    ) -> list[dict[str, Any]]:
        """The caller's threads, most recently updated first, filtered by ``ids``,
        ``metadata`` and ``status`` (``values`` filters are refused); without their values."""
        return await _search(parts, owner, body)

    @api.post("/threads/count", responses=errors)
    async def count_threads(body: ThreadSearch, parts: parts_dep, owner: owner_dep) -> int:
        """How many of the caller's threads match (``search``'s filters)."""
        everything = body.model_copy(update={"limit": 1000, "offset": 0})
        return len(await _search(parts, owner, everything))


async def _save_metadata(
    parts: ServiceParts, owner: Owner, thread: Thread, metadata: dict[str, Any]
) -> None:
    await parts.store.save_thread(
        thread.id,
        tenant_id=owner.tenant_id,
        resource_id=owner.user_id,
        metadata={**thread.metadata, METADATA_KEY: metadata},
    )


async def _search(parts: ServiceParts, owner: Owner, body: ThreadSearch) -> list[dict[str, Any]]:
    if body.values:
        raise invalid_field("values", "refused: runyard does not search threads by their values")
    store, found = parts.store, []
    threads = await store.list_threads(tenant_id=owner.tenant_id, resource_id=owner.user_id)
    for thread in threads:
        if not owner.owns_key(thread.id):
            continue
        thread_id = owner.thread_id_of(thread.id)
        if body.ids is not None and thread_id not in body.ids:
            continue
        status = await parts.runs.status(owner, thread_id)
        shown = thread_body(thread_id, thread, status)
        if _metadata_matches(shown, body) and body.status in (None, shown["status"]):
            found.append(shown)
    if body.sort_by is not None:
        key = body.sort_by
        found.sort(key=lambda t: str(t[key]), reverse=body.sort_order == "desc")
    page = found[body.offset : body.offset + body.limit]
    if body.select:
        return [{k: v for k, v in t.items() if k in body.select} for t in page]
    return page


async def _create(parts: ServiceParts, owner: Owner, body: ThreadCreate) -> dict[str, Any]:
    for name in ("supersteps", "ttl"):
        if getattr(body, name):
            raise invalid_field(name, f"refused: runyard threads take no {name}")
    thread_id = body.thread_id or str(uuid.uuid4())
    key = owner.thread_key(thread_id)
    found = await parts.store.get_thread(key, tenant_id=owner.tenant_id, resource_id=owner.user_id)
    if found is not None and body.if_exists == "raise":
        raise ThreadExists(thread_id)
    if found is None:
        thread = await Threads(parts.events, parts.store).ensure(owner, thread_id)
        await _save_metadata(parts, owner, thread, body.metadata or {})
    return await read_thread(parts, owner, thread_id)


async def _update(
    parts: ServiceParts, owner: Owner, thread_id: str, body: ThreadPatch
) -> dict[str, Any]:
    if body.ttl:
        raise invalid_field("ttl", "refused: runyard threads take no ttl")
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    kept = thread.metadata.get(METADATA_KEY)
    merged = {**(kept if isinstance(kept, dict) else {}), **body.metadata}
    await _save_metadata(parts, owner, thread, merged)
    return await read_thread(parts, owner, thread_id)
