"""``reload_catalog``: read the catalog directory again and swap the new catalog in.

Each file is accepted or rejected whole, as at start-up; a file rejected now (YAML, unknown
field, tool or model, a rule to a missing agent, a spec the runtime cannot compile) serves its
last good entries, and its errors are listed. Every new version is compiled before the swap, so
a request never meets a spec that fails to build. Versions no longer served stay compiled: runs
suspended on them resume on them, and every version served is stored in the database first, so
they resume on them after a restart too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runyard.registry import (
    CatalogEntry,
    CatalogError,
    CatalogLoad,
    CatalogSpec,
    RejectedFile,
    RoutingSpec,
)
from runyard.service.catalog.agents import CatalogAgents
from runyard.service.catalog.state import CatalogState

__all__ = [
    "CatalogChange",
    "apply_catalog",
    "catalog_change",
    "read_catalog_files",
    "reload_catalog",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CatalogChange:
    """What one reload changed: specs by label (``agent billing``, ``agent billing (tenant
    acme)``, ``routing (every tenant)``), and the files it rejected."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    rejected: tuple[RejectedFile, ...]

    def __str__(self) -> str:
        parts = [
            f"{what} {', '.join(labels)}"
            for what, labels in (
                ("added", self.added),
                ("changed", self.changed),
                ("removed", self.removed),
            )
            if labels
        ]
        return "; ".join(parts) or "no spec changed"


def read_catalog_files(
    agents: CatalogAgents, path: Path, last_good: CatalogLoad | None = None
) -> CatalogLoad:
    """The catalog in ``path``, every agent of it compiled by ``agents``; a file whose new
    specs do not compile is rejected like a file with a YAML error (and serves its entries of
    ``last_good``, when it has some)."""
    served = dict(last_good.served) if last_good is not None else {}
    refused: dict[str, list[CatalogError]] = {}
    while True:
        load = agents.tools.load(path, last_good=served, refused=refused)
        failures = agents.compile_new(load.catalog)
        if not failures:
            return load
        # Each round rejects one more file, or takes its last good entries away when those
        # fail too (they compiled before, so only a broken model layer gets here): it ends.
        for file, errors in failures.items():
            if file in refused:
                served.pop(file, None)
            refused.setdefault(file, []).extend(errors)


async def reload_catalog(agents: CatalogAgents) -> CatalogChange | None:
    """Read ``agents``' directory again and serve it; what changed (None: nothing did).

    A directory that is gone is refused whole: the catalog served before keeps serving, and the
    reason is logged. The rest is ``apply_catalog``'s.
    """
    return await apply_catalog(agents, lambda last_good: _read_files(agents, last_good))


async def apply_catalog(
    agents: CatalogAgents, read: Callable[[CatalogLoad], CatalogLoad | None]
) -> CatalogChange | None:
    """Serve what ``read`` gives (called with the files' load served now, under ``changes``;
    None: it refused the new catalog, and logged why); what changed (None: nothing did).

    Every version served is stored before it serves (``record_versions``). A catalog that holds
    no agent at all is refused whole: the catalog served before keeps serving, and the reason is
    logged. Timed into ``registry_reload_duration_seconds``. The file watch and a follower's
    stream (``catalog_follow``) both serve through here, so both serve alike.
    """
    started, outcome = time.perf_counter(), "failed"
    try:
        change = await _apply(agents, read)
        outcome = "unchanged" if change is None else "changed"
        return change
    finally:
        seconds = time.perf_counter() - started
        agents.metrics.registry_reload_duration.labels(outcome).observe(seconds)


def _read_files(agents: CatalogAgents, last_good: CatalogLoad) -> CatalogLoad | None:
    try:
        return read_catalog_files(agents, Path(agents.source), last_good)
    except FileNotFoundError as exc:
        logger.error("catalog reload refused: %s; the catalog loaded before keeps serving", exc)
        return None


async def _apply(
    agents: CatalogAgents, read: Callable[[CatalogLoad], CatalogLoad | None]
) -> CatalogChange | None:
    async with agents.changes:
        before = agents.state
        load = read(before.files)
        if load is None:
            return None
        if not load.catalog.agents:
            logger.error(
                "catalog reload refused: %s holds no agent to serve; the catalog loaded before "
                "keeps serving",
                agents.source,
            )
            return None
        await agents.record_versions(load)
        after = agents.serve_files(load)
    if after is None:
        return None
    change = catalog_change(before, after)
    logger.info("catalog %s reloaded: %s", agents.source, change)
    _log_rejected(change)
    return change


def catalog_change(before: CatalogState, after: CatalogState) -> CatalogChange:
    """What serves differently in ``after`` than in ``before``."""
    old = {_label(e): e.version for e in before.catalog.entries()}
    new = {_label(e): e.version for e in after.catalog.entries()}
    return CatalogChange(
        added=tuple(label for label in new if label not in old),
        changed=tuple(label for label in new if label in old and old[label] != new[label]),
        removed=tuple(label for label in old if label not in new),
        rejected=after.rejected,
    )


def _label(entry: CatalogEntry[CatalogSpec]) -> str:
    spec = entry.spec
    scope = f"tenant {spec.tenant}" if spec.tenant is not None else "every tenant"
    if isinstance(spec, RoutingSpec):
        return f"routing ({scope})"
    return f"{spec.kind} {spec.id}" + (f" ({scope})" if spec.tenant is not None else "")


def _log_rejected(change: CatalogChange) -> None:
    for rejected in change.rejected:
        keeps = "its last good version serves" if rejected.last_good else "nothing of it serves"
        for error in rejected.errors:
            logger.error("catalog file rejected (%s): %s", keeps, error)
