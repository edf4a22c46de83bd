"""Standard health checking (NOT_SERVING while starting and draining) and server reflection."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_harness import grpc_served
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from runyard.config import Settings
from runyard.grpc import GrpcServer, GrpcState

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def health_of(channel: grpc.aio.Channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=service))
    return int(reply.status)


async def test_health_is_not_serving_until_served_and_again_once_draining() -> None:
    server = GrpcServer(GrpcState(Settings()), "127.0.0.1", 0)
    port = await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        starting = await health_of(channel)
        await server.serve(object())  # type: ignore[arg-type]
        serving = await health_of(channel, "runyard.v1.InferenceService")
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
        assert (await watch.read()).status == SERVING
        draining = asyncio.create_task(server.drain(1))
        seen = (await watch.read()).status
        await draining

    assert (starting, serving, seen) == (NOT_SERVING, SERVING, NOT_SERVING)


def reflected(port: int) -> tuple[list[str], list[str]]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = sorted(database.get_services())
        inference = database.FindFileContainingSymbol("runyard.v1.InferenceService")
        methods = [m.name for m in inference.service[0].method]
        return services, methods


async def test_reflection_lists_both_services_and_their_methods(tmp_path: Path) -> None:
    async with grpc_served(f"sqlite:///{tmp_path / 'runyard.db'}") as served:
        services, methods = await asyncio.to_thread(reflected, served.server.port)

    assert services == [
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "runyard.v1.CatalogService",
        "runyard.v1.InferenceService",
    ]
    assert methods == ["Invoke", "Stream", "ListAgents", "Confirm", "Cancel"]


async def test_a_second_server_on_a_taken_port_fails_instead_of_sharing_it() -> None:
    first = GrpcServer(GrpcState(Settings()), "127.0.0.1", 0)
    port = await first.start()
    second = GrpcServer(GrpcState(Settings()), "127.0.0.1", port)
    try:
        with pytest.raises((OSError, RuntimeError)):
            await second.start()
    finally:
        await second.drain(0)
        await first.drain(0)
