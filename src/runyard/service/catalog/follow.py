"""A follower replica's catalog: another runyard's, taken from its catalog stream.

A ``CatalogFeed`` is one connection to the leader (``runyard.grpc.GrpcCatalogFeed`` over
``CatalogService.StreamCatalog``): a full snapshot, then a delta per change. ``first_catalog``
waits for the first snapshot at start-up; ``follow_feed`` then applies every update through
``apply_catalog``, the path a reload of the files takes, so a follower serves what a file reload
of the same specs would. When the leader goes away the catalog served keeps serving, and the
feed is opened again with backoff; its first update is a whole snapshot, so nothing changed
meanwhile is missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from runyard.errors import ConfigurationError
from runyard.registry import Catalog, CatalogEntry, CatalogLoad, CatalogSpec, RoutingSpec
from runyard.service.catalog.agents import CatalogAgents
from runyard.service.catalog.reload import apply_catalog

__all__ = [
    "CatalogFeed",
    "CatalogFeedError",
    "CatalogFeedUpdate",
    "SpecKey",
    "feed_load",
    "first_catalog",
    "follow_feed",
    "spec_key",
]

logger = logging.getLogger(__name__)

SpecKey = tuple[str, str, str]
"""A spec's (kind, tenant or "", id or "" for routing)."""

Specs = Mapping[SpecKey, CatalogEntry[CatalogSpec]]

RETRY_FIRST_SECONDS = 0.2
"""The wait before the first reconnection; it doubles after each failed one."""
RETRY_MAX_SECONDS = 5.0
"""The longest wait between reconnections."""


class CatalogFeedError(Exception):
    """The leader cannot be reached, or its stream broke (the message says which)."""


@dataclass(frozen=True, slots=True)
class CatalogFeedUpdate:
    """One update of the leader's catalog: every spec (``snapshot``), or those added or changed
    and the keys of those removed."""

    generation: int
    snapshot: bool
    upserted: tuple[CatalogEntry[CatalogSpec], ...]
    removed: tuple[SpecKey, ...] = ()

    def applied_to(self, specs: Specs) -> dict[SpecKey, CatalogEntry[CatalogSpec]]:
        """``specs`` with this update applied."""
        result = {} if self.snapshot else dict(specs)
        for key in self.removed:
            result.pop(key, None)
        result.update((spec_key(entry), entry) for entry in self.upserted)
        return result


class CatalogFeed(Protocol):
    """Where a follower's catalog comes from."""

    @property
    def source(self) -> str:
        """The leader, as configured (``grpc://host:port``)."""
        ...

    def updates(self) -> AsyncGenerator[CatalogFeedUpdate]:
        """One connection's updates, a snapshot first; ``CatalogFeedError`` when it fails."""
        ...


def spec_key(entry: CatalogEntry[CatalogSpec]) -> SpecKey:
    """The key ``entry`` is sent and removed under."""
    spec = entry.spec
    spec_id = "" if isinstance(spec, RoutingSpec) else spec.id
    return spec.kind, spec.tenant or "", spec_id


async def first_catalog(feed: CatalogFeed, seconds: float) -> CatalogLoad:
    """The leader's snapshot, trying again with backoff for up to ``seconds``;
    ``ConfigurationError`` when none came."""
    try:
        async with asyncio.timeout(seconds):
            async with aclosing(_reconnecting(feed)) as updates:
                async for update in updates:
                    return feed_load(feed, update.applied_to({}))
    except TimeoutError:
        pass
    raise ConfigurationError(
        f"RUNYARD_CATALOG_SOURCE: no catalog from {feed.source} within {seconds:g}s"
    )


async def follow_feed(agents: CatalogAgents, feed: CatalogFeed) -> None:
    """Serve every update of ``feed`` on ``agents`` until cancelled."""
    specs: dict[SpecKey, CatalogEntry[CatalogSpec]] = {}
    async for update in _reconnecting(feed):
        specs = update.applied_to(specs)
        load = feed_load(feed, specs)
        try:
            await apply_catalog(agents, partial(_compiled, agents, feed, load))
        except Exception:
            logger.exception("serving the catalog of %s failed; the catalog before serves", feed)


def feed_load(feed: CatalogFeed, specs: Specs) -> CatalogLoad:
    """The load a follower serves: the leader's specs, as one source."""
    entries = tuple(specs.values())
    return CatalogLoad(Catalog.of(list(entries)), served={feed.source: entries})


def _compiled(
    agents: CatalogAgents, feed: CatalogFeed, load: CatalogLoad, _served: CatalogLoad
) -> CatalogLoad | None:
    """``load`` once every agent of it compiled; None (logged) when one does not: the leader's
    catalog is served whole or not at all (``_served``, the load served now, is not needed:
    the leader keeps its files' last good entries)."""
    failures = agents.compile_new(load.catalog)
    for errors in failures.values():
        for error in errors:
            logger.error("catalog of %s refused, the catalog before serves: %s", feed.source, error)
    return None if failures else load


async def _reconnecting(feed: CatalogFeed) -> AsyncGenerator[CatalogFeedUpdate]:
    """The updates of one connection after another, waiting longer after each that fails."""
    wait = RETRY_FIRST_SECONDS
    while True:
        try:
            async with aclosing(feed.updates()) as updates:
                async for update in updates:
                    wait = RETRY_FIRST_SECONDS
                    yield update
            reason = "it ended the stream"
        except CatalogFeedError as exc:
            reason = str(exc)
        logger.warning(
            "catalog leader %s: %s; the catalog served keeps serving; again in %.1fs",
            feed.source,
            reason,
            wait,
        )
        await asyncio.sleep(wait)
        wait = min(wait * 2, RETRY_MAX_SECONDS)
