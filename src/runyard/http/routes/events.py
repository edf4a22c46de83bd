"""``GET /v1/events/{threadId}``: the thread's events over Server-Sent Events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request

from runyard.http.cursor import CURSOR, LAST_EVENT_ID, QUERY_CURSOR, replay_cursor
from runyard.http.openapi import EVENT_STREAM, error_responses
from runyard.http.routes.stream_caller import StreamReader, stream_reader
from runyard.http.sse import EventStreamResponse, event_frames
from runyard.http.state import AppState, Parts, parts

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["events"])


@router.get(
    "/events/{thread_id}",
    response_class=EventStreamResponse,
    status_code=200,
    responses={200: EVENT_STREAM, **error_responses(400, 401, 404, 422, 503)},
)
async def events(
    request: Request,
    reader: Annotated[StreamReader, Depends(stream_reader)],
    app: Annotated[Parts, Depends(parts)],
    last_event_id: Annotated[str | None, Header(alias=LAST_EVENT_ID), CURSOR] = None,
    query_cursor: Annotated[str | None, Query(alias=QUERY_CURSOR), CURSOR] = None,
) -> EventStreamResponse:
    """Replay events with ``id > cursor`` (``Last-Event-ID`` wins over ``?lastEventId``; none =
    the whole history), then stream live ones. A new thread id is the caller's own thread.
    With ``RUNYARD_AUTH=keys``, ``?ticket=`` may stand in for the API key (a browser's
    EventSource cannot send it)."""
    cursor = replay_cursor(last_event_id, query_cursor)
    thread = await app.threads.ensure(reader.owner, reader.thread_id)
    state: AppState = request.app.state.runyard
    frames = event_frames(
        app.events, thread.id, cursor, state.sse_ping_seconds, state.shutdown, state.sse_follow
    )
    return EventStreamResponse(frames, state.metrics)
