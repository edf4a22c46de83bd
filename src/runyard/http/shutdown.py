"""``Shutdown``: how the app goes away without hanging on its event streams.

An SSE response never ends by itself, so a server that waits for open responses before it stops
the app waits forever. ``drain`` stops in order: new requests get 503 ``not_ready`` with
``Retry-After``; this process's runs get the grace to end, and the rest are handed over unfinished
(``RunManager.aclose``: leases released, so another replica's sweep takes them at once); then
every open event stream sends what the log holds, a last ``event: server-shutdown`` frame without an ``id:``
(the client's ``Last-Event-ID`` stays where it was) and ends, so its client reconnects to another
server. ``runyard serve`` drains on SIGTERM before uvicorn waits for connections; the app's
lifespan drains on its way out (idempotent), whoever runs it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from types import TracebackType

from runyard.service import RunManager

__all__ = ["GOING_AWAY", "Shutdown"]

logger = logging.getLogger("runyard.http")

GOING_AWAY = b'event: server-shutdown\ndata: {"reason":"server_shutdown"}\n\n'
"""The last frame of every stream the server ends: named, so ``onmessage`` never sees it."""
_GOODBYE_SECONDS = 1.0


class Shutdown:
    """The app's stopping state: refuse requests, then tell the open streams to say goodbye."""

    def __init__(self) -> None:
        self.stopping = False
        """Set when draining starts: routes answer 503 from then on."""
        self.going_away = asyncio.Event()
        """Set once this process's runs have ended: streams flush, say goodbye and end."""
        self._streams = 0
        self._waits: set[asyncio.Timeout] = set()
        self._no_streams = asyncio.Event()
        self._no_streams.set()
        self._drained = asyncio.Event()

    @contextmanager
    def stream(self) -> Iterator[None]:
        """Count an open event stream while the block runs (``drain`` waits for it to end)."""
        self._streams += 1
        self._no_streams.clear()
        try:
            yield
        finally:
            self._streams -= 1
            if self._streams == 0:
                self._no_streams.set()

    def interruptible(self) -> AbstractAsyncContextManager[None]:
        """A wait that ends with ``TimeoutError`` when the server goes away (or already has).

        A deadline moved to now, rather than a second task racing each wait: this sits on the
        path of every event batch a stream sends (and so is a plain class, not a generator).
        """
        return _Interruptible(self)

    async def drain(self, runs: RunManager, grace_seconds: float) -> None:
        """Refuse requests, let the runs end and hand over the rest, end the streams; each
        stage within what is left of ``grace_seconds``. A second call waits for the first."""
        if self.stopping:
            await self._drained.wait()
            return
        self.stopping = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_seconds
        # Runs get the grace less the goodbye's moment; aclose hands the stragglers over itself
        # (bounded), so its heartbeat always stops.
        await runs.aclose(settle_seconds=max(grace_seconds - _GOODBYE_SECONDS, 0.0))
        self.going_away.set()
        for wait in self._waits:
            wait.reschedule(loop.time())
        try:
            # Even runs that used up the grace leave the streams a moment to say goodbye.
            async with asyncio.timeout_at(max(deadline, loop.time() + _GOODBYE_SECONDS)):
                await self._no_streams.wait()
        except TimeoutError:
            logger.warning("shutdown: %d event stream(s) still open", self._streams)
        self._drained.set()


class _Interruptible:
    __slots__ = ("_shutdown", "_wait")

    def __init__(self, shutdown: Shutdown) -> None:
        self._shutdown = shutdown
        self._wait = asyncio.timeout(0 if shutdown.going_away.is_set() else None)

    async def __aenter__(self) -> None:
        await self._wait.__aenter__()
        self._shutdown._waits.add(self._wait)

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._shutdown._waits.discard(self._wait)
        await self._wait.__aexit__(kind, error, trace)
