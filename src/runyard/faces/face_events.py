"""``face_frames``: one run's wire events as a face's stream of frames, through its ``EventMapper``
— the loop every streaming face shares, so a face is only its mapping. ``face_values`` is the
same loop before the frames are written: what a face answering in one body folds;
``face_batches`` gives each batch with the log id of the event it maps, for a face whose frames
carry ids a client reconnects with (LangGraph's ``Last-Event-ID``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import AbstractContextManager, aclosing
from typing import Any, Protocol

from runyard.faces.face_runs import FaceRun
from runyard.faces.face_stream import FaceStream, sse_data
from runyard.protocol import ConfirmationRequestPayload, RunResumedEvent, WireEvent
from runyard.service import FollowStopped, RunPause, follow_run

__all__ = [
    "EventMapper",
    "face_batches",
    "face_frames",
    "face_values",
    "awaiting_client",
    "going_away",
    "streamed",
    "taken_over_message",
]


class EventMapper(Protocol):
    """A face's mapping of one run: each method gives the frames' values (JSON, or a bare string
    such as ``[DONE]``) to send, in order."""

    def started(self) -> list[Any]:
        """Sent first, before any event of the run."""
        ...

    def event(self, event: WireEvent) -> list[Any]:
        """For one wire event of the run (its ``run-finish`` included)."""
        ...

    def paused(self, pause: RunPause, waiting: list[ConfirmationRequestPayload]) -> list[Any]:
        """The run stopped without a ``run-finish``: suspended on the ``waiting`` questions, or
        closed (cancelled, failed) with ``pause.reason``."""
        ...

    def stopped(self, last_event_id: int) -> list[Any]:
        """The server is going away before the run ended (it carries on elsewhere)."""
        ...

    def taken_over(self, after_event_id: int) -> list[Any]:
        """Another server took the run over after its driver died, and says again what came
        after ``after_event_id``, of which this stream already sent some: a stream cannot take
        back what it sent, so it ends here (``taken_over_message``)."""
        ...

    def ended(self) -> list[Any]:
        """Sent last, whatever ended the stream."""
        ...


def streamed(
    run: FaceRun,
    mapper: EventMapper,
    counted: AbstractContextManager[asyncio.Event],
    headers: Mapping[str, str] | None = None,
) -> FaceStream:
    """The response that streams ``run`` through ``mapper``, and cancels it if the client
    leaves first."""
    return FaceStream(
        lambda going_away: face_frames(run, mapper, going_away), counted, run.cancel, headers or {}
    )


async def face_frames(
    run: FaceRun, mapper: EventMapper, going_away: asyncio.Event
) -> AsyncGenerator[bytes, None]:
    """The run's frames: ``started``, one batch per event, the end, ``ended``."""
    async for values in face_values(run, mapper, going_away):
        yield _frames(values)


async def face_values(
    run: FaceRun, mapper: EventMapper, going_away: asyncio.Event
) -> AsyncGenerator[list[Any], None]:
    """The mapper's values, batch by batch: ``started``, one batch per
    event, the end, ``ended``."""
    async with aclosing(face_batches(run, mapper, going_away)) as batches:
        async for _, values in batches:
            yield values


async def face_batches(
    run: FaceRun, mapper: EventMapper, going_away: asyncio.Event
) -> AsyncGenerator[tuple[int | None, list[Any]], None]:
    """``face_values``' batches, each with the log id of the event it maps (None: a batch of no
    event — the start, a pause, the end)."""
    yield None, mapper.started()
    parts = run.parts
    try:
        following = follow_run(parts.store, parts.events, run.followed, going_away)
        async with aclosing(following) as items:
            async for batch in _mapped(run, mapper, items):
                yield batch
    except FollowStopped as stopped:
        yield None, mapper.stopped(stopped.last_event_id)
    if ended := mapper.ended():
        yield None, ended


async def _mapped(
    run: FaceRun, mapper: EventMapper, items: AsyncIterator[tuple[int, WireEvent] | RunPause]
) -> AsyncIterator[tuple[int | None, list[Any]]]:
    """The mapper's values of each followed item; a takeover that says again what was sent
    ends them with ``taken_over``."""
    sent = run.followed.cursor
    """The log id of the last event the mapper sent values for."""
    async for item in items:
        at: int | None = None
        if isinstance(item, RunPause):
            mapped = mapper.paused(item, await run.pending())
        elif isinstance(item[1], RunResumedEvent) and item[1].payload.after_event_id < sent:
            yield None, mapper.taken_over(item[1].payload.after_event_id)
            return
        elif mapped := mapper.event(item[1]):
            sent = at = item[0]
        if mapped:
            yield at, mapped


def awaiting_client(thread_id: str) -> str:
    """What a face tells its client when the run waits on nobody it can ask: only on a
    ``filesystem-request``, which the client driving the thread over /v1 answers."""
    return (
        "the run waits for the client driving this thread to answer a file request "
        f"(filesystem-request on GET /v1/events/{thread_id}; the answer goes to "
        "POST /v1/confirm/{requestId})"
    )


def taken_over_message(thread_id: str, after_event_id: int) -> str:
    """What a face tells its client when the run it streams was taken over mid-step."""
    return (
        "the server running this answer stopped and another took the run over; it says again "
        f"what came after event {after_event_id}: follow it on GET /v1/events/{thread_id}"
        f"?lastEventId={after_event_id}, or read the answer on GET /v1/threads/{thread_id}"
        "/messages once it ends"
    )


def _frames(values: list[Any]) -> bytes:
    return b"".join(map(sse_data, values))


def going_away(thread_id: str, last_event_id: int) -> str:
    """What a face tells its client when the server goes away before the run ended: the run
    carries on (on any replica), and where to follow it."""
    return (
        "the server is going away; the run carries on: follow it on "
        f"GET /v1/events/{thread_id}?lastEventId={last_event_id}"
    )
