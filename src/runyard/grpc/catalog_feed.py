"""``GrpcCatalogFeed``: a follower's ``CatalogFeed``, the leader's ``StreamCatalog`` read.

``runyard serve --catalog grpc://host:port`` (``RUNYARD_CATALOG_SOURCE``) serves it; with
``RUNYARD_AUTH=keys`` on the leader, ``RUNYARD_CATALOG_SOURCE_KEY`` is sent as the
``authorization`` (an admin key of the leader's operator tenant sees every tenant's specs). Each
spec is validated as the files' are, and keeps the version the leader gave it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from pydantic import ValidationError

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.registry import SPEC_KINDS, CatalogEntry, CatalogSpec
from runyard.service import CatalogFeedError, CatalogFeedUpdate

__all__ = ["GRPC_SCHEME", "GrpcCatalogFeed"]

GRPC_SCHEME = "grpc://"


@dataclass(frozen=True, slots=True)
class GrpcCatalogFeed:
    """The catalog stream of the runyard at ``target`` (``host:port``)."""

    target: str
    api_key: str = ""

    @classmethod
    def of_url(cls, url: str, api_key: str = "") -> GrpcCatalogFeed:
        """The feed of ``grpc://host:port``; ``ValueError`` naming the setting otherwise."""
        target = url.removeprefix(GRPC_SCHEME)
        if not url.startswith(GRPC_SCHEME) or not target or "/" in target:
            raise ValueError(f"RUNYARD_CATALOG_SOURCE: expected grpc://host:port, got {url!r}")
        return cls(target, api_key)

    @property
    def source(self) -> str:
        return GRPC_SCHEME + self.target

    async def updates(self) -> AsyncGenerator[CatalogFeedUpdate]:
        metadata = (("authorization", f"Bearer {self.api_key}"),) if self.api_key else ()
        async with grpc.aio.insecure_channel(self.target) as channel:
            stub = pb_grpc.CatalogServiceStub(channel)  # type: ignore[no-untyped-call]
            call = stub.StreamCatalog(pb.StreamCatalogRequest(), metadata=metadata)
            try:
                async for update in call:
                    yield self._update(update)
            except grpc.aio.AioRpcError as exc:
                raise CatalogFeedError(f"{exc.code().name}: {exc.details()}") from exc

    def _update(self, update: pb.CatalogUpdate) -> CatalogFeedUpdate:
        return CatalogFeedUpdate(
            generation=update.generation,
            snapshot=update.snapshot,
            upserted=tuple(self._entry(spec) for spec in update.upserted),
            removed=tuple((key.kind, key.tenant, key.id) for key in update.removed),
        )

    def _entry(self, spec: pb.CatalogSpec) -> CatalogEntry[CatalogSpec]:
        kind = SPEC_KINDS.get(spec.kind)
        if kind is None:
            raise CatalogFeedError(f"the leader sent a spec of unknown kind {spec.kind!r}")
        try:
            parsed = kind.model_validate(_whole_numbers(json_format.MessageToDict(spec.spec)))
        except ValidationError as exc:
            raise CatalogFeedError(f"the leader sent a spec this runyard refuses: {exc}") from exc
        return CatalogEntry(parsed, self.source, 0, spec.version)


def _whole_numbers(value: Any) -> Any:
    """``value`` with its whole floats made ints again: a ``Struct`` holds every number as a
    double, and a spec's integer fields (limits, say) refuse ``5.0``; its float fields take
    ``5`` back as ``5.0``, so the spec is the leader's."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value
