"""``watch_catalog``: the served catalog follows its directory and its database while the
server runs.

On entry it stores the version of every agent served and applies the database's activations.
Then one task watches the directory with ``watchfiles`` (inotify where the system has it) and
reloads the catalog (``reload_catalog``) after each burst of changes to ``*.yaml``/``*.yml``
files, so an edit is live well within two seconds; another polls the database's catalog
revision every ``poll_seconds`` (``RUNYARD_CATALOG_POLL_SECONDS``), so an activation made
through another replica is live within that time. Both live as long as the ``async with`` block
(the app's lifespan); a reload or poll that fails is logged and the watch goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from watchfiles import Change, awatch

from runyard.registry import CATALOG_SUFFIXES
from runyard.service.catalog.agents import CatalogAgents
from runyard.service.catalog.follow import CatalogFeed, follow_feed
from runyard.service.catalog.reload import reload_catalog

__all__ = ["WATCH_DEBOUNCE_MS", "watch_catalog"]

logger = logging.getLogger(__name__)

WATCH_DEBOUNCE_MS = 150
"""How long a burst of changes may go quiet before the catalog is read (an editor's save is
often a write, a rename and a chmod)."""

_QUIET_MS = 250
"""How long the watch waits for a change before it says it is still watching."""

_WATCH_START_SECONDS = 30.0
"""How long start-up waits for the watch to be set up (it takes milliseconds)."""


@asynccontextmanager
async def watch_catalog(
    agents: CatalogAgents, poll_seconds: float = 1.0, feed: CatalogFeed | None = None
) -> AsyncIterator[None]:
    """Keep ``agents`` up to date with its directory (or, given ``feed``, with its leader:
    ``catalog_follow``) and its database while the block runs."""
    async with agents.changes:
        await agents.record_versions(agents.load)
    await agents.refresh()
    stop, watching = asyncio.Event(), asyncio.Event()
    source = (
        _watch(agents, Path(agents.source), stop, watching)
        if feed is None
        else follow_feed(agents, feed)
    )
    tasks = [asyncio.create_task(source), asyncio.create_task(_poll(agents, poll_seconds))]
    try:
        if feed is None:
            await _started(tasks[0], watching, agents.source)
        yield
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _started(watcher: asyncio.Task[None], watching: asyncio.Event, source: str) -> None:
    """Return once edits are seen, so an edit made after start-up is never missed; a watch that
    cannot start (the system's limit of watches, say) is logged, and the server goes on
    without hot reload."""
    ready = asyncio.create_task(watching.wait())
    await asyncio.wait(
        {ready, watcher}, timeout=_WATCH_START_SECONDS, return_when=asyncio.FIRST_COMPLETED
    )
    if watching.is_set():
        return
    ready.cancel()
    reason = watcher.exception() if watcher.done() and not watcher.cancelled() else "no answer"
    logger.error("hot reload is off: the catalog %s cannot be watched (%s)", source, reason)


async def _poll(agents: CatalogAgents, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        try:
            state = await agents.refresh()
        except Exception:
            logger.exception("reading the catalog's database failed; trying again")
            continue
        if state is not None:
            logger.info(
                "catalog database revision %d: %d activated version(s) serve, %d refused",
                state.database_revision,
                len(state.database),
                len(state.database_rejected),
            )


async def _watch(
    agents: CatalogAgents, path: Path, stop: asyncio.Event, watching: asyncio.Event
) -> None:
    # A single file is watched through its folder: editors replace a file by renaming another
    # onto it, and a watch on the old file would end there.
    one_file = not await asyncio.to_thread(path.is_dir)
    folder = path.parent if one_file else path

    def relevant(_change: Change, changed: str) -> bool:
        name = Path(changed)
        return name == path if one_file else name.suffix in CATALOG_SUFFIXES

    # ``awatch`` yields an empty set whenever ``rust_timeout`` passes without a change: the
    # first one (or the first change) proves the watch is set up. The directory is read once
    # more then, for an edit made between the start-up read and that moment.
    async for changes in awatch(
        folder,
        watch_filter=relevant,
        debounce=WATCH_DEBOUNCE_MS,
        step=50,
        stop_event=stop,
        rust_timeout=_QUIET_MS,
        yield_on_timeout=True,
    ):
        if not changes and watching.is_set():
            continue
        if not watching.is_set():
            logger.info("watching the catalog %s for changes", path)
            watching.set()
        try:
            await reload_catalog(agents)
        except Exception:
            logger.exception("catalog reload failed; the catalog loaded before keeps serving")
