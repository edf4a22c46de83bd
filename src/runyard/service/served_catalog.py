"""``open_catalog``: the catalog ``runyard serve`` serves, as read at start-up.

``RUNYARD_CATALOG_DIR`` names it; unset, ``./agents`` when that directory exists, else none (the
built-in ``assistant`` alone; the bundled ``examples/agents`` are never served unless named).
Rejected files are logged, each error as ``file:line: field: message``, and the good files
serve; a catalog with no agent at all, or an agent the runtime cannot serve yet, stops the
start-up with a ``ConfigurationError`` that says why. After start-up the app watches the
directory (``watch_catalog``): changes are live without a restart.
"""

from __future__ import annotations

import logging
from pathlib import Path

from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.models import resolve_model
from runyard.observability import Metrics
from runyard.registry.tools import ToolDependencies
from runyard.service.catalog_agents import CatalogAgents, ModelFor
from runyard.service.catalog_tools import CatalogTools
from runyard.storage import Store

__all__ = ["DEFAULT_CATALOG_DIR", "catalog_directory", "open_catalog"]

logger = logging.getLogger(__name__)

DEFAULT_CATALOG_DIR = Path("agents")


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
