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
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from watchfiles import Change, awatch

from runyard.registry import CATALOG_SUFFIXES
from runyard.service.catalog_agents import CatalogAgents
from runyard.service.catalog_reload import reload_catalog

__all__ = ["WATCH_DEBOUNCE_MS", "watch_catalog"]

logger = logging.getLogger(__name__)

WATCH_DEBOUNCE_MS = 150
"""How long a burst of changes may go quiet before the catalog is read (an editor's save is
often a write, a rename and a chmod)."""


@asynccontextmanager
async def watch_catalog(agents: CatalogAgents, poll_seconds: float = 1.0) -> AsyncIterator[None]:
    """Keep ``agents`` up to date with its directory and its database while the block runs."""
    async with agents.changes:
        await agents.record_versions(agents.load)
    await agents.refresh()
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(_watch(agents, Path(agents.source), stop)),
        asyncio.create_task(_poll(agents, poll_seconds)),
    ]
    try:
        yield
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


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


async def _watch(agents: CatalogAgents, path: Path, stop: asyncio.Event) -> None:
    # A single file is watched through its folder: editors replace a file by renaming another
    # onto it, and a watch on the old file would end there.
    one_file = not await asyncio.to_thread(path.is_dir)
    folder = path.parent if one_file else path

    def relevant(_change: Change, changed: str) -> bool:
        name = Path(changed)
        return name == path if one_file else name.suffix in CATALOG_SUFFIXES

    logger.info("watching the catalog %s for changes", path)
    async for _changes in awatch(
        folder, watch_filter=relevant, debounce=WATCH_DEBOUNCE_MS, step=50, stop_event=stop
    ):
        try:
            await reload_catalog(agents)
        except Exception:
            logger.exception("catalog reload failed; the catalog loaded before keeps serving")
