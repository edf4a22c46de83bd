"""``open_catalog``: the catalog ``runyard serve`` serves, as read at start-up.

``RUNYARD_CATALOG_DIR`` names it; unset, ``./agents`` when that directory exists, else none (the
built-in ``assistant`` alone; the bundled ``examples/agents`` are never served unless named).
Rejected files are logged, each error as ``file:line: field: message``, and the good files
serve; a catalog with no agent at all, or an agent the runtime cannot serve yet, stops the
start-up with a ``ConfigurationError`` that says why. After start-up the app watches the
directory (``watch_catalog``): changes are live without a restart.

``open_followed_catalog`` is the follower's: ``RUNYARD_CATALOG_SOURCE`` (``runyard serve
--catalog grpc://host:port``) names a leader whose catalog is served instead of files
(``catalog_follow``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.models import resolve_model
from runyard.observability import Metrics
from runyard.registry.tools import ToolDependencies
from runyard.service.catalog.agents import CatalogAgents, ModelFor
from runyard.service.catalog.follow import CatalogFeed, first_catalog
from runyard.service.catalog.tools import CatalogTools
from runyard.storage import Store

__all__ = [
    "DEFAULT_CATALOG_DIR",
    "FIRST_CATALOG_SECONDS",
    "catalog_directory",
    "open_catalog",
    "open_followed_catalog",
]

logger = logging.getLogger(__name__)

DEFAULT_CATALOG_DIR = Path("agents")

FIRST_CATALOG_SECONDS = 30.0
"""How long a follower's start-up waits for its leader's catalog."""


def catalog_directory(settings: Settings) -> Path | None:
    """``RUNYARD_CATALOG_DIR``, else ``./agents`` when it is a directory, else None."""
    if settings.catalog_dir:
        return Path(settings.catalog_dir)
    return DEFAULT_CATALOG_DIR if DEFAULT_CATALOG_DIR.is_dir() else None


def open_catalog(
    settings: Settings,
    store: Store,
    deps: ToolDependencies,
    model_for: ModelFor = resolve_model,
    metrics: Metrics | None = None,
) -> CatalogAgents | None:
    """The catalog's agents, their tools built by the discovered factories with ``deps`` (call
    ``compile_all`` once their ``aclose`` is arranged); None when no catalog is configured."""
    path = catalog_directory(settings)
    if path is None:
        return None
    tools = CatalogTools.discover(deps)
    try:
        load = tools.load(path)
    except FileNotFoundError as exc:
        raise ConfigurationError(f"RUNYARD_CATALOG_DIR: {exc}") from exc
    for error in load.errors:
        logger.error("catalog file rejected: %s", error)
    agents = CatalogAgents(load, store, settings, model_for, str(path), tools, metrics)
    logger.info(
        "serving the catalog %s: %d agent(s), %d rejected file(s)",
        path,
        len(load.catalog.agents),
        len(load.rejected),
    )
    return agents


async def open_followed_catalog(
    feed: CatalogFeed,
    settings: Settings,
    store: Store,
    deps: ToolDependencies,
    model_for: ModelFor = resolve_model,
    metrics: Metrics | None = None,
    wait_seconds: float = FIRST_CATALOG_SECONDS,
) -> CatalogAgents:
    """The catalog of ``feed``'s leader, as its first snapshot gives it (``ConfigurationError``
    when none comes within ``wait_seconds``); ``watch_catalog(..., feed=feed)`` keeps it current."""
    load = await first_catalog(feed, wait_seconds)
    tools = CatalogTools.discover(deps)
    agents = CatalogAgents(load, store, settings, model_for, feed.source, tools, metrics)
    agents.followed = True
    logger.info("serving the catalog of %s: %d agent(s)", feed.source, len(load.catalog.agents))
    return agents
