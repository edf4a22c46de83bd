"""How the LangGraph face answers with a run: its stream (``StreamParts`` as SSE frames with the
log ids a reconnect resumes after), its outcome in one body (``runs.wait``, ``runs.join``), and
the ``Run`` object.

A response says where to rejoin it, as LangGraph Server does: ``Location`` is the run's stream
(``join`` for ``runs.wait``, whose SDK call reads it again from there) and ``Content-Location``
the run, both relative to the face's base URL (the SDK resolves them against the ``url`` it was
given, and reconnects with ``Last-Event-ID`` when a stream breaks before its ``end``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, aclosing
from typing import Any
from urllib.parse import urlencode

from runyard.faces.face_answer import FaceAnswer
from runyard.faces.face_events import face_batches
from runyard.faces.face_events import going_away as going_away_message
from runyard.faces.face_runs import FaceRun
from runyard.faces.face_stream import FaceStream
from runyard.faces.langgraph.stream_parts import StreamParts
from runyard.faces.langgraph.thread_state import iso_time
from runyard.storage import RunRecord

__all__ = ["run_body", "run_headers", "run_stream", "run_waited"]

_STATUS = {
    "queued": "pending",
    "running": "running",
    "suspended": "interrupted",
    "completed": "success",
    "failed": "error",
    "cancelled": "interrupted",
    "interrupted": "error",
}
"""runyard's run status as LangGraph's (``suspended``: waiting for an interrupt's answer)."""


def run_headers(
    thread_id: str, run_id: str, modes: Sequence[str], rejoin: str = "stream"
) -> dict[str, str]:
    """Where the run is, and where to rejoin it (its ``stream`` in the stream ``modes`` asked
    for, or ``join`` for an answer in one body), relative to the face's base URL. The modes
    ride in the URL: a rejoin sends no body, and LangGraph Server remembers a run's modes."""
    where = f"/threads/{thread_id}/runs/{run_id}"
    query = urlencode([("stream_mode", mode) for mode in modes])
    again = f"{where}/stream?{query}" if rejoin == "stream" else f"{where}/{rejoin}"
    return {"Content-Location": where, "Location": again}


def run_body(thread_id: str, record: RunRecord) -> dict[str, Any]:
    """A ``Run``."""
    return {
        "run_id": record.run_id,
        "thread_id": thread_id,
        "assistant_id": record.agent_id or "",
        "created_at": iso_time(record.started_at),
        "updated_at": iso_time(record.finished_at or record.started_at),
        "status": _STATUS.get(record.status, "error"),
        "metadata": {},
        "multitask_strategy": "reject",
        "kwargs": {},
    }


async def _nothing() -> None:
    """A client leaving a run it lets go on."""


def run_stream(
    run: FaceRun,
    parts: StreamParts,
    counted: AbstractContextManager[asyncio.Event],
    cancel_on_leave: bool,
) -> FaceStream:
    """The run streamed through ``parts``; a client that leaves cancels it when asked to."""

    async def frames(leaving: asyncio.Event) -> AsyncGenerator[bytes, None]:
        async with aclosing(face_batches(run, parts, leaving)) as batches:
            async for at, batch in batches:
                yield b"".join(part.frame(at) for part in batch)

    left: Callable[[], Awaitable[None]] = run.cancel if cancel_on_leave else _nothing
    headers = run_headers(run.thread_id, run.followed.run_id, sorted(parts.modes))
    return FaceStream(frames, counted, left, headers)


def run_waited(
    run: FaceRun,
    parts: StreamParts,
    counted: AbstractContextManager[asyncio.Event],
    cancel_on_leave: bool,
) -> FaceAnswer:
    """The run's outcome once it ends or waits: the thread's values, with ``__interrupt__``
    while an approval waits; ``{"__error__": {"error", "message"}}`` when it failed (as
    LangGraph Server's ``runs.wait`` answers)."""

    async def answer(leaving: asyncio.Event) -> tuple[int, Any]:
        interrupts: Any = None
        error: Any = None
        async with aclosing(face_batches(run, parts, leaving)) as batches:
            async for _, batch in batches:
                for part in batch:
                    if part.event == "error":
                        error = part.data
                    elif isinstance(part.data, dict) and "__interrupt__" in part.data:
                        interrupts = part.data["__interrupt__"]
        if parts.gone:
            message = going_away_message(run.thread_id, run.followed.cursor)
            return 503, {"detail": message, "code": "server_going_away", "param": None}
        if error is not None:
            return 200, {"__error__": error}
        values = parts.values.values()
        return 200, values if interrupts is None else {**values, "__interrupt__": interrupts}

    left: Callable[[], Awaitable[None]] = run.cancel if cancel_on_leave else _nothing
    headers = run_headers(run.thread_id, run.followed.run_id, (), "join")
    return FaceAnswer(answer, counted, left, headers)
