"""``GrpcState``: what the gRPC services serve from — the service's parts once they are ready,
the settings, the redactor — and the stop signal every stream watches while the server drains."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from runyard.config import Settings
from runyard.grpc.status import CallError
from runyard.grpc.stream_buffer import BufferStats, StreamLimits
from runyard.observability import Metrics, Tracing
from runyard.redaction import SecretRedactor
from runyard.service import ServiceParts

__all__ = ["GrpcState"]


@dataclass
class GrpcState:
    """Shared by the services of one server; ``parts`` is None while starting and after draining."""

    settings: Settings
    redactor: SecretRedactor = field(default_factory=SecretRedactor)
    limits: StreamLimits = field(default_factory=StreamLimits)
    parts: ServiceParts | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    stats: BufferStats = field(default_factory=BufferStats)
    metrics: Metrics = field(default_factory=Metrics)
    """The HTTP app's instruments, so ``/metrics`` counts gRPC streams beside SSE ones."""
    tracing: Tracing = field(default_factory=Tracing)
    """The HTTP app's tracing: a call's server span is the parent of the run it starts."""
    catalog_poll_seconds: float = 0.2
    """How often ``StreamCatalog`` looks for a new served catalog (an in-memory check)."""

    def ready(self) -> ServiceParts:
        """The parts; ``UNAVAILABLE`` while the server starts or stops."""
        if self.stopping.is_set():
            raise CallError("UNAVAILABLE", "not_ready", "the service is stopping")
        if self.parts is None:
            raise CallError("UNAVAILABLE", "not_ready", "the service is starting")
        return self.parts
