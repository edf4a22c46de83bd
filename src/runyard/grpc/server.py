"""``GrpcServer``: the gRPC services on one ``grpc.aio`` server, in the event loop of the HTTP
app, with standard health checking and server reflection.

Health (``grpc.health.v1``, the overall service ``""`` and each runyard service) says
``NOT_SERVING`` from start until ``serve`` hands over the ready parts, and again from the moment
``drain`` begins: a load balancer stops sending calls before the streams are ended.
"""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from runyard.grpc.catalog import CatalogServicer
from runyard.grpc.inference import InferenceServicer
from runyard.grpc.observed_calls import ObservedCalls
from runyard.grpc.serving import GrpcState
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.service import ServiceParts

__all__ = ["SERVICE_NAMES", "GrpcServer"]

SERVICE_NAMES = tuple(service.full_name for service in pb.DESCRIPTOR.services_by_name.values())
"""``runyard.v1.InferenceService`` and ``runyard.v1.CatalogService``."""


class GrpcServer:
    """The gRPC server of one runyard process; ``start``, then ``serve``, then ``drain``."""

    def __init__(self, state: GrpcState, host: str, port: int) -> None:
        self.state = state
        self.address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.port = port
        self.health = HealthServicer()
        self.inference = InferenceServicer(state)
        # No SO_REUSEPORT: a second server on a taken port must fail, not share it silently.
        self._server = grpc.aio.server(
            options=[("grpc.so_reuseport", 0)], interceptors=[ObservedCalls(state.tracing)]
        )
        # The generated registration functions are untyped (grpcio-tools writes no stubs).
        pb_grpc.add_InferenceServiceServicer_to_server(self.inference, self._server)  # type: ignore[no-untyped-call]
        pb_grpc.add_CatalogServiceServicer_to_server(CatalogServicer(state), self._server)  # type: ignore[no-untyped-call]
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        names = (*SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
        reflection.enable_server_reflection((*names, reflection.SERVICE_NAME), self._server)

    async def start(self) -> int:
        """Listen (health ``NOT_SERVING``); the port bound. A taken port raises ``OSError``
        (``RuntimeError`` from grpcio versions that raise their own)."""
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        bound = self._server.add_insecure_port(self.address)
        if bound == 0:
            raise OSError(f"cannot listen on {self.address}")
        self.port = int(bound)
        await self._server.start()
        return self.port

    async def serve(self, parts: ServiceParts) -> None:
        """Serve ``parts``: calls are answered, health says ``SERVING``."""
        self.state.parts = parts
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)

    async def drain(self, grace_seconds: float) -> None:
        """``NOT_SERVING``, every stream ended (saying where to resume), then the server stops,
        giving unary calls under way ``grace_seconds``."""
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        self.state.stopping.set()
        await self._server.stop(grace_seconds)
        self.state.parts = None

    async def _set_health(self, status: int) -> None:
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, status)
