"""The app's parts served over gRPC on a loopback port, and a generated client for them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from fastapi import FastAPI

from runyard.agent import Agent
from runyard.config import Settings
from runyard.grpc import GrpcServer, GrpcState, StreamLimits
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.http import create_app
from runyard.storage import Store, open_store

ALICE = (("x-runyard-tenant", "acme"), ("x-runyard-user", "alice"))


@dataclass
class Served:
    app: FastAPI
    server: GrpcServer
    channel: grpc.aio.Channel
    inference: pb_grpc.InferenceServiceStub
    catalog: pb_grpc.CatalogServiceStub

    @property
    def parts(self) -> Any:
        return self.app.state.runyard.parts


@asynccontextmanager
async def grpc_served(
    url: str,
    agents: Callable[[Store], Sequence[Agent]] | None = None,
    *,
    settings: dict[str, Any] | None = None,
    limits: StreamLimits | None = None,
    channel_options: Sequence[tuple[str, Any]] = (),
    **options: Any,
) -> AsyncIterator[Served]:
    """The HTTP app's lifespan entered and a ``GrpcServer`` serving its parts on a free port;
    ``channel_options`` go to the client's channel."""
    config = Settings(
        **{"database_url": url, "model": "runyard:demo", "auth": "proxy", **(settings or {})}
    )
    options.setdefault("titles", False)
    store = await open_store(url) if agents is not None else None
    try:
        given = {"store": store, "agents": {a.name: a for a in agents(store)}} if store else {}
        app = create_app(config, **given, **options)
        async with app.router.lifespan_context(app):
            runyard = app.state.runyard
            state = GrpcState(
                config,
                runyard.redactor,
                limits or StreamLimits(),
                metrics=runyard.metrics,
                tracing=runyard.tracing,
            )
            state.catalog_poll_seconds = 0.02
            server = GrpcServer(state, "127.0.0.1", 0)
            port = await server.start()
            await server.serve(app.state.runyard.parts)
            try:
                async with grpc.aio.insecure_channel(
                    f"127.0.0.1:{port}", options=list(channel_options)
                ) as channel:
                    yield Served(
                        app,
                        server,
                        channel,
                        pb_grpc.InferenceServiceStub(channel),
                        pb_grpc.CatalogServiceStub(channel),
                    )
            finally:
                await server.drain(1)
    finally:
        if store is not None:
            await store.close()


async def streamed(served: Served, request: pb.InvokeRequest, **kw: Any) -> list[pb.StreamEvent]:
    """Every event of one ``Stream`` call."""
    return [event async for event in served.inference.Stream(request, metadata=ALICE, **kw)]


async def read_rest(call: Any) -> list[Any]:
    """What a streaming call still sends, read with ``read()`` (the iterator cannot follow it)."""
    rest = []
    while (message := await call.read()) is not grpc.aio.EOF:
        rest.append(message)
    return rest


def kinds(events: Sequence[pb.StreamEvent]) -> list[str]:
    return [str(e.WhichOneof("event")) for e in events]
