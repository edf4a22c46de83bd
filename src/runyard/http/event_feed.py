"""``event_batches``: what every event stream of a thread sends, whatever its framing.

The stored events after a cursor, then live ones, as batches; an empty batch after
``ping_seconds`` without events (time for a keep-alive); and, when the server goes away,
``SERVER_GOING_AWAY`` last. SSE (``runyard.http.sse``) and the WebSocket
(``runyard.http.websocket``) both read this one source and differ only in how they frame it, so
replay, live delivery and the shutdown order are decided here once. Every event it yields is
stored first (``EventLog.reader`` reads the log): durable before shown.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import Final

from runyard.http.shutdown import Shutdown
from runyard.service import EventLog, LiveEvent
from runyard.storage import DatabaseUnavailable

__all__ = ["SERVER_GOING_AWAY", "ServerGoingAway", "event_batches"]

logger = logging.getLogger(__name__)


class ServerGoingAway:
    """The last item of a followed stream the server ends because it is stopping."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SERVER_GOING_AWAY"


SERVER_GOING_AWAY: Final = ServerGoingAway()


async def event_batches(
    events: EventLog,
    thread_id: str,
    cursor: int,
    ping_seconds: float,
    shutdown: Shutdown,
    follow: bool = True,
) -> AsyncGenerator[list[LiveEvent] | ServerGoingAway, None]:
    """Stored events after ``cursor``, then live ones; ``[]`` after ``ping_seconds`` idle.

    When the server goes away it yields what the log holds, then ``SERVER_GOING_AWAY``, and
    ends; when the database stays away longer than the store waits for it, it ends without it
    (the client reconnects). An interrupted read moved no cursor, so the last reads start where
    it stopped. With ``follow=False`` it ends as soon as it has yielded what the log holds.
    Close it (``contextlib.aclosing``) to let go of the thread's reader at once.
    """
    with shutdown.stream():
        try:
            async with events.reader(thread_id, after=cursor) as reader:
                with contextlib.suppress(TimeoutError):
                    while follow:
                        async with shutdown.interruptible():
                            batch = await reader.next(max_wait=ping_seconds)
                        yield batch
                while batch := await reader.next(max_wait=0):
                    yield batch
        except DatabaseUnavailable as exc:
            # Waited out as long as the store waits (storage.sql.engine): the stream ends whole,
            # and the client reconnects from the last id it has, nothing lost.
            logger.warning("thread %s: the stream ends, the database is away: %s", thread_id, exc)
            return
        if follow:
            yield SERVER_GOING_AWAY
