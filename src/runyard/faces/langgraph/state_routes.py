"""``/langgraph/threads/{thread_id}/state`` and ``/history``: a thread's LangGraph state now
or at a checkpoint (a position of its log), and its history, read by ``thread_state``.

``update_state`` is refused (422 naming ``values``): a runyard agent's state is its thread's
event log and memory, written only by its runs.
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``state_routes``.

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from runyard.faces.face_runs import pending_questions
from runyard.faces.invalid_body import invalid_field
from runyard.faces.langgraph.error_shape import langgraph_errors
from runyard.faces.langgraph.path_ids import CheckpointId, ThreadId
from runyard.faces.langgraph.thread_state import folded, run_ends, thread_state
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServiceParts, Threads

__all__ = ["read_state", "state_routes"]

NoSubgraphs = Annotated[str | None, Query(description="accepted: there are no subgraphs")]


class StateUpdate(BaseModel):
    """``threads.update_state`` (refused)."""

    model_config = ConfigDict(extra="ignore", strict=True)

    values: Any = None
    as_node: str | None = None


class HistoryQuery(BaseModel):
    """``threads.get_history``."""

    model_config = ConfigDict(extra="ignore", strict=True)

    limit: int = Field(default=10, ge=1, le=1000)
    before: str | dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    checkpoint: dict[str, Any] | None = None


class CheckpointQuery(BaseModel):
    """``threads.get_state(checkpoint=...)``."""

    model_config = ConfigDict(extra="ignore", strict=True)

    checkpoint: dict[str, Any]
    subgraphs: bool = False


async def read_state(
    parts: ServiceParts, owner: Owner, thread_id: str, checkpoint: int | None = None
) -> dict[str, Any]:
    """The thread's state now, or at ``checkpoint`` (a log position)."""
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    values, at = await folded(parts, owner, thread, checkpoint)
    if checkpoint is not None:
        return thread_state(thread_id, values.values(), at, None, ())
    status = await parts.runs.status(owner, thread_id)
    questions = await pending_questions(parts, thread.id)
    return thread_state(thread_id, values.values(), at, status, questions)


def _checkpoint_id(given: str | dict[str, Any] | None, field: str) -> int | None:
    """A ``checkpoint_id`` given bare or in a checkpoint object; 422 naming ``field``."""
    value = given.get("checkpoint_id") if isinstance(given, dict) else given
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit() and len(value) <= 18:
        return int(value)
    raise invalid_field(field, "must be a checkpoint_id this thread's state gave")


async def _history(
    parts: ServiceParts, owner: Owner, thread_id: str, body: HistoryQuery
) -> list[dict[str, Any]]:
    """The state now, then at the end of each earlier run, newest first."""
    before = _checkpoint_id(body.before, "before")
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    ends = await run_ends(parts, owner, thread)
    if not ends:
        return []
    status = await parts.runs.status(owner, thread_id)
    questions = await pending_questions(parts, thread.id)
    newest = ends[-1][0]
    states = []
    for at, values in reversed(ends):
        if before is not None and at >= before:
            continue
        now = at == newest  # only the newest state has the thread's status and questions
        states.append(
            thread_state(thread_id, values, at, status if now else None, questions if now else ())
        )
    return states[: body.limit]


def state_routes(api: APIRouter, wiring: FaceWiring) -> None:
    """Add the state and history routes to ``api``."""
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    errors = langgraph_errors(wiring.errors)(400, 401, 404, 422, 503)

    @api.get("/threads/{thread_id:langgraph_name}/state", responses=errors)
    async def get_state(
        thread_id: ThreadId, parts: parts_dep, owner: owner_dep, subgraphs: NoSubgraphs = None
    ) -> dict[str, Any]:
        """The thread's state: ``values``, ``next`` (``["tools"]`` while an approval waits),
        ``tasks`` and ``interrupts`` (the waiting questions), ``checkpoint``."""
        return await read_state(parts, owner, thread_id)

    @api.get(
        "/threads/{thread_id:langgraph_name}/state/{checkpoint_id:langgraph_checkpoint}",
        responses=errors,
    )
    async def get_state_at(
        thread_id: ThreadId,
        checkpoint_id: CheckpointId,
        parts: parts_dep,
        owner: owner_dep,
        subgraphs: NoSubgraphs = None,
    ) -> dict[str, Any]:
        """The thread's state at ``checkpoint_id`` (its log up to that event)."""
        return await read_state(parts, owner, thread_id, int(checkpoint_id))

    @api.post("/threads/{thread_id:langgraph_name}/state/checkpoint", responses=errors)
    async def get_state_at_checkpoint(
        thread_id: ThreadId, body: CheckpointQuery, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """The thread's state at ``checkpoint.checkpoint_id``."""
        at = _checkpoint_id(body.checkpoint, "checkpoint.checkpoint_id")
        return await read_state(parts, owner, thread_id, at)

    @api.post("/threads/{thread_id:langgraph_name}/state", responses=errors)
    async def update_state(
        thread_id: ThreadId, body: StateUpdate, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """Refused (422 naming ``values``): a runyard agent's state is written by its runs."""
        await Threads(parts.events, parts.store).get(owner, thread_id)
        raise invalid_field(
            "values",
            "refused: a runyard agent's state is its thread's log and memory, written only by "
            "its runs; send a message with runs.create, or answer an interrupt with "
            'command={"resume": ...}',
        )

    @api.post("/threads/{thread_id:langgraph_name}/history", responses=errors)
    async def get_history(
        thread_id: ThreadId, body: HistoryQuery, parts: parts_dep, owner: owner_dep
    ) -> list[dict[str, Any]]:
        """The thread's states, newest first: now, then at the end of each earlier run
        (``before`` a ``checkpoint_id``, at most ``limit``)."""
        return await _history(parts, owner, thread_id, body)
