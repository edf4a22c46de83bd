"""The service race's app with a watch on its event loop, for ``loop_stalls.py``.

Every callback the loop runs (one step of a task, a transport's read, a timer) is timed: while
one runs, nothing else in the process does, so its duration is how long it held every stream of
the process. The watch wraps asyncio's ``Handle._run`` (run uvicorn with ``--loop asyncio``), and
records, for each callback, when it ended (``time.monotonic()``, the same clock in every process
on Linux) and how long it ran. At shutdown the samples go to the file ``RUNYARD_BENCH_STALLS``
names, as JSON ``{"ended": [...], "held": [...]}`` (seconds).
"""

from __future__ import annotations

import asyncio.events
import gc
import json
import os
import time
from array import array
from pathlib import Path
from typing import Any

from service_race_app import create as create_race_app

_NAMED = 0.010


def _named(handle: asyncio.events.Handle) -> str:
    """What ran: the task's coroutine where the callback steps one, with the collections that
    ran meanwhile (the cyclic collector runs inside whichever callback allocates)."""
    owner = getattr(handle._callback, "__self__", None)
    task = owner if isinstance(owner, asyncio.Task) else getattr(owner, "_task", None)
    what = repr(handle)[:120]
    if isinstance(task, asyncio.Task):
        what = f"task {task.get_coro().__qualname__}"  # type: ignore[union-attr]
    return what


class _Watch:
    def __init__(self) -> None:
        self.ended = array("d")
        self.held = array("d")
        self.longest: list[tuple[float, float, str]] = []
        self.collections: list[tuple[int, float, float]] = []
        self._collecting = 0.0
        """Callbacks that held the loop over ``_NAMED`` seconds, and what they were."""

    def start(self) -> None:
        gc.callbacks.append(self._collected)
        run = asyncio.events.Handle._run
        ended, held, clock = self.ended, self.held, time.monotonic

        def timed(handle: asyncio.events.Handle) -> None:
            began = clock()
            run(handle)
            now = clock()
            ended.append(now)
            held.append(now - began)
            if now - began > _NAMED:
                self.longest.append((now - began, now, _named(handle)))

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = time.monotonic()
        else:
            now = time.monotonic()
            self.collections.append((info["generation"], now - self._collecting, now))

    def dump(self) -> None:
        samples = {
            "ended": self.ended.tolist(),
            "held": self.held.tolist(),
            "longest": self.longest,
            "collections": self.collections,
        }
        Path(os.environ["RUNYARD_BENCH_STALLS"]).write_text(json.dumps(samples))


def create() -> Any:
    app = create_race_app()
    watch = _Watch()

    async def watched(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return

        async def lifespan_send(message: Any) -> None:
            if message["type"] == "lifespan.startup.complete":
                gc.freeze()  # as ``runyard serve`` does once it serves (cli/server.py)
                watch.start()
            elif message["type"] == "lifespan.shutdown.complete":
                watch.dump()
            await send(message)

        await app(scope, receive, lifespan_send)

    return watched
