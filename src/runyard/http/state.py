"""``AppState``: the parts the app's lifespan assembles, and the routes' way to reach them."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from runyard.config import Settings
from runyard.http.errors import ApiError
from runyard.http.shutdown import Shutdown
from runyard.observability import Metrics, Tracing
from runyard.redaction import SecretRedactor
from runyard.service import (
    AgentDirectory,
    CatalogAgents,
    EventLog,
    RunManager,
    ServiceStopping,
    Threads,
)
from runyard.storage import Store

__all__ = ["AppState", "Parts", "parts"]


@dataclass(frozen=True, slots=True)
class Parts:
    """What serves requests once the app is ready."""

    store: Store
    events: EventLog
    runs: RunManager
    threads: Threads
    agents: AgentDirectory
    """Who chooses each run's agent: ``FixedAgents``, or the catalog's ``CatalogAgents``."""
    catalog: CatalogAgents | None = None
    """The catalog served; None when the agents were given or are the built-in ``assistant``."""


@dataclass
class AppState:
    """Settings and options fixed by ``create_app``; ``parts`` set while the app is ready."""

    settings: Settings
    sse_ping_seconds: float
    sse_follow: bool = True
    parts: Parts | None = None
    shutdown: Shutdown = field(default_factory=Shutdown)
    redactor: SecretRedactor = field(default_factory=SecretRedactor)
    """Blanks secrets in logs, error bodies, events and what the store keeps."""
    metrics: Metrics = field(default_factory=Metrics)
    """This app's instruments (``GET /metrics``)."""
    tracing: Tracing = field(default_factory=Tracing)
    """Where this app's spans go (off by default)."""

    async def drain(self) -> None:
        """Stop serving: 503 for new requests, let this process's runs end and hand over the rest,
        end every event stream (``runyard.http.shutdown``), within
        ``RUNYARD_SHUTDOWN_GRACE_SECONDS``."""
        if self.parts is not None:
            await self.shutdown.drain(self.parts.runs, self.settings.shutdown_grace_seconds)


async def parts(request: HTTPConnection) -> Parts:
    """The ready parts of the app; 503 while it starts or stops (stopping: with
    ``Retry-After``, for another replica or this one restarted).

    ``async`` although it awaits nothing: FastAPI runs a plain ``def`` dependency on a worker
    thread, a round trip through the thread pool on every request."""
    state: AppState = request.app.state.runyard
    if state.shutdown.stopping:
        raise ServiceStopping()
    if state.parts is None:
        raise ApiError(503, "not_ready", "the service is starting")
    return state.parts
