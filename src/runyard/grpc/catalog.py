"""``CatalogService.StreamCatalog``: the served catalog, then its changes as they happen.

The first update is the whole catalog (``snapshot``); after it, one update per change of the
served catalog (a reload of the files, an activation in the database), holding the specs added
or changed (at their new version) and the keys of those removed. A spec is sent as its
canonical JSON, so a follower that validates it gets the same content hash (``version``).
The served catalog is replaced whole on every change, so a new one is spotted by identity,
every ``GrpcState.catalog_poll_seconds``.

Who sees what: with ``RUNYARD_AUTH=keys`` a key sees the shared specs and its tenant's own,
except an admin key of ``RUNYARD_OPERATOR_TENANT``, which sees every tenant's (a follower
replica uses one); without keys the callers are trusted and see everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import grpc

from runyard.grpc.auth import call_caller
from runyard.grpc.events import json_struct
from runyard.grpc.serving import GrpcState
from runyard.grpc.status import CallError, Refusals
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.registry import CatalogEntry, CatalogSpec
from runyard.registry.specs import canonical_json
from runyard.service import CatalogAgents, CatalogState, Owner, SpecKey, spec_key
from runyard.storage import ApiKeyRole

__all__ = ["CatalogServicer", "catalog_update"]

Specs = dict[SpecKey, CatalogEntry[CatalogSpec]]


class CatalogServicer:
    """The method of ``runyard.v1.CatalogService``, behind the error table."""

    def __init__(self, state: GrpcState) -> None:
        self.state = state
        self.StreamCatalog = Refusals(state.redactor).streaming(self._stream_catalog)

    async def _stream_catalog(
        self, request: pb.StreamCatalogRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.CatalogUpdate]:
        parts = self.state.ready()
        owner, role = await call_caller(
            self.state.settings, parts.store, context.invocation_metadata() or ()
        )
        served = parts.catalog
        if served is None:
            raise CallError(
                "FAILED_PRECONDITION",
                "catalog_not_served",
                "this server serves no catalog (RUNYARD_CATALOG_DIR)",
            )
        everything = self._sees_every_tenant(owner, role)
        state = served.state
        sent = _visible(state, owner, everything)
        yield catalog_update(state.generation, {}, sent, snapshot=True)
        while (changed := await self._next_state(served, state)) is not None:
            state = changed
            now = _visible(state, owner, everything)
            if _versions(now) != _versions(sent):
                yield catalog_update(state.generation, sent, now)
                sent = now

    def _sees_every_tenant(self, owner: Owner, role: ApiKeyRole | None) -> bool:
        settings = self.state.settings
        if settings.auth != "keys":
            return True
        operator = settings.operator_tenant
        return bool(operator) and role == "admin" and owner.tenant_id == operator

    async def _next_state(self, served: CatalogAgents, seen: CatalogState) -> CatalogState | None:
        """The next catalog served after ``seen``; None once the server stops."""
        stopping = self.state.stopping
        while served.state is seen:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.state.catalog_poll_seconds):
                    await stopping.wait()
            if stopping.is_set():
                return None
        return served.state


def catalog_update(
    generation: int, before: Specs, after: Specs, *, snapshot: bool = False
) -> pb.CatalogUpdate:
    """The update that turns ``before`` into ``after``."""
    upserted = [
        _spec(key, entry)
        for key, entry in after.items()
        if key not in before or before[key].version != entry.version
    ]
    removed = [
        pb.CatalogSpecKey(kind=k, tenant=t, id=i) for (k, t, i) in before if (k, t, i) not in after
    ]
    return pb.CatalogUpdate(
        generation=generation, snapshot=snapshot, upserted=upserted, removed=removed
    )


def _visible(state: CatalogState, owner: Owner, everything: bool) -> Specs:
    return {
        spec_key(entry): entry
        for entry in state.catalog.entries()
        if everything or entry.spec.tenant in (None, owner.tenant_id)
    }


def _versions(specs: Specs) -> dict[SpecKey, str]:
    return {key: entry.version for key, entry in specs.items()}


def _spec(key: SpecKey, entry: CatalogEntry[CatalogSpec]) -> pb.CatalogSpec:
    kind, tenant, spec_id = key
    document = json.loads(canonical_json(entry.spec))
    return pb.CatalogSpec(
        kind=kind, id=spec_id, tenant=tenant, version=entry.version, spec=json_struct(document)
    )
