"""``create_app``: the FastAPI application of ``runyard serve``.

Its lifespan opens what was not given (the store from ``RUNYARD_DATABASE_URL``, the bus from
``RUNYARD_REDIS_URL``, the agents of the catalog ``RUNYARD_CATALOG_DIR`` names, watched for
changes, else the default ``assistant``), runs the crash sweep and starts the lease
heartbeat, loads the model layer, and only then reports ready; on shutdown it drains
(``runyard.http.shutdown``: 503 for new requests, runs let end or handed over, every event
stream told the server is going away and ended), stops the heartbeat and closes what it opened,
in reverse order.
HTTP concerns (body limit, error bodies, CORS) are middleware and handlers.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from fastapi import APIRouter, FastAPI

from runyard.agent import Agent
from runyard.config import Settings
from runyard.faces import agui, ai_sdk, langgraph, openai
from runyard.faces.mcp import McpFace
from runyard.http.api_docs import install_api_docs
from runyard.http.body_limit import BodyLimit
from runyard.http.cors import add_cors, parse_origins
from runyard.http.errors import install_error_handlers
from runyard.http.face_wiring import face_wiring
from runyard.http.heap import tune_collector
from runyard.http.observed_requests import ObservedRequests
from runyard.http.openapi import install_openapi
from runyard.http.routes import KEYS_ROUTERS, ROUTERS
from runyard.http.routes.files import UPLOAD_PATH
from runyard.http.shutdown import Shutdown
from runyard.http.state import AppState, Parts
from runyard.http.ui import install_ui
from runyard.memory import Memory
from runyard.models import resolve_model
from runyard.observability import Metrics, Tracing
from runyard.redaction import redacted_logs, server_redactor
from runyard.registry.tools import EgressAllowList, EgressPolicy, ToolDependencies
from runyard.service import (
    DEFAULT_AGENT,
    AgentDirectory,
    CatalogAgents,
    CatalogFeed,
    EventLog,
    FixedAgents,
    ModelFor,
    RedactingStore,
    RunManager,
    RunTelemetry,
    TenantLimits,
    Threads,
    default_agent,
    open_catalog,
    open_followed_catalog,
    watch_catalog,
)
from runyard.service.bus import EventBus, start_event_bus
from runyard.service.content import ContentRules, FilesFor
from runyard.service.files import StoredBinaries, files_for
from runyard.storage import DatabaseUnavailable, Store, open_store
from runyard.telemetry.observed import ObservedTelemetry

__all__ = ["AgentsOnStore", "create_app"]

AgentsOnStore = Callable[[Store], Mapping[str, Agent]]
"""Builds the agents to serve on the store the app gives it: the app's own, redacting one, so
what their memory and checkpoints write is redacted too (docs/security.md)."""

logger = logging.getLogger("runyard.http")


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    agents: Mapping[str, Agent] | AgentsOnStore | None = None,
    bus: EventBus | None = None,
    sse_ping_seconds: float = 15.0,
    sse_follow: bool = True,
    titles: bool = True,
    instance: str | None = None,
    model_for: ModelFor | None = None,
    tracing: Tracing | None = None,
    catalog_feed: CatalogFeed | None = None,
    files: FilesFor | None = None,
) -> FastAPI:
    """The runyard HTTP app; pass ``store``/``agents``/``bus`` to use yours (you close them).

    ``agents`` maps names to agents; ``assistant`` (else the first) is the default. Given as a
    function of a store (``AgentsOnStore``), it is called with the app's redacting store and
    the app closes the agents (and their memory) it returns; agents given as a mapping keep the
    store they were built on, which the app does not redact.
    ``sse_ping_seconds`` is the idle time before a ``: ping`` keep-alive; ``sse_follow=False``
    ends each event stream once it has sent what is stored (tests, one-shot exports);
    ``titles`` turns thread titles on; ``instance`` is this process's instance id, the owner of
    its run leases (default: ``RUNYARD_INSTANCE_ID``, else ``<host name>-<random hex>``).
    Without ``agents``, the catalog ``RUNYARD_CATALOG_DIR`` names (``open_catalog``) is served,
    else the built-in ``assistant``; ``model_for`` maps the catalog's model names to models
    (default ``resolve_model``; tests map them to ``FunctionModel``s). ``tracing`` is where
    spans go (default: OTLP export when ``RUNYARD_OTLP_ENDPOINT`` or
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, else off; a given one is not shut down here).
    ``catalog_feed`` makes this app a follower: it serves that leader's catalog, not files
    (``runyard serve --catalog grpc://host:port`` passes a ``runyard.grpc.GrpcCatalogFeed``).
    ``files`` is each caller's view of the file store, which messages name files of by
    ``file_id`` (default: none, and such a message is refused 400 ``file_store_unavailable``).
    """
    config = settings or Settings()
    traces = tracing or Tracing.exporting(
        config.otlp_endpoint, content=config.trace_content, instance=config.instance_id
    )
    state = AppState(
        config, sse_ping_seconds, sse_follow, redactor=server_redactor(config), tracing=traces
    )

    faces = face_wiring()
    mcp_face = McpFace(faces)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.shutdown = Shutdown()
        tune_collector()  # a server process: see runyard.http.heap
        async with AsyncExitStack() as stack:
            given = _Given(store, agents, bus, model_for or resolve_model, catalog_feed, files)
            stack.enter_context(redacted_logs(state.redactor))
            if tracing is None:  # exports what is buffered, after everything else stopped
                stack.callback(traces.shutdown)
            state.parts = await _assemble(stack, config, given, titles, instance, state)
            stack.push_async_callback(mcp_face.aclose)  # after the drain: its calls ended
            try:
                yield
            finally:
                # A no-op when ``runyard serve`` drained already, before uvicorn's connection wait.
                await state.drain()
                state.parts = None

    app = FastAPI(
        title="runyard",
        summary="Agent inference service: runs, human approvals and events over SSE.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # install_api_docs serves both without a CDN
        redoc_url=None,
    )
    app.state.runyard = state
    routers = (
        *ROUTERS,
        *(KEYS_ROUTERS if config.auth == "keys" else ()),
        agui.router(faces),
        ai_sdk.router(faces),
        openai.router(faces),
        langgraph.router(faces),
        mcp_face.router,
    )
    for router in routers:
        _serve_as_built(app, router)
    install_error_handlers(
        app, {openai.PREFIX: openai.openai_error, langgraph.PREFIX: langgraph.langgraph_error}
    )
    install_api_docs(app)
    install_ui(app)
    install_openapi(app, bodies=[langgraph.LangGraphErrorBody])
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes, own_limits=[UPLOAD_PATH])
    # Around the body limit and every route: a 413 or a 503 is timed, traced and has its id.
    app.add_middleware(ObservedRequests, metrics=state.metrics, tracing=traces)
    # Outermost: a 413 or any error a browser page receives carries the CORS headers too.
    add_cors(app, parse_origins(config.cors_origins))
    return app


def _serve_as_built(app: FastAPI, router: APIRouter) -> None:
    """Serve ``router``'s routes as they were built: each router carries its own prefix and tags,
    and is included with nothing added. ``include_router`` would have FastAPI build every route
    again, for the context it is included in, on its router's first request (~45 ms of CPU
    before the first ``/readyz``), and look each request up through every included router."""
    app.router.routes.extend(router.routes)


@dataclass(frozen=True, slots=True)
class _Given:
    """What the caller of ``create_app`` passed in (None: the app opens its own)."""

    store: Store | None
    agents: Mapping[str, Agent] | AgentsOnStore | None
    bus: EventBus | None
    model_for: ModelFor
    catalog_feed: CatalogFeed | None
    files: FilesFor | None


async def _assemble(
    stack: AsyncExitStack,
    settings: Settings,
    given: _Given,
    titles: bool,
    instance: str | None,
    state: AppState,
) -> Parts:
    """Open what was not given (each closed by ``stack``), sweep, and warm the model layer.

    Everything the app builds writes through one ``RedactingStore`` (agents given as a mapping
    keep theirs) and reports to ``state``'s metrics and tracing.
    """
    redactor, metrics = state.redactor, state.metrics
    opened, bus = given.store, given.bus
    if opened is None:
        try:
            opened = await open_store(settings.database_url, settings=settings)
        except DatabaseUnavailable as exc:
            # The store waited for the database already (storage.sql.engine): say so, once.
            logger.error("start-up gave up waiting for the database: %s", exc)
            raise
        stack.push_async_callback(opened.close)
    store: Store = RedactingStore(opened, redactor)
    if bus is None:
        # Redis unreachable does not stop the start-up: events are delivered by polling the
        # log until it answers (the report and /readyz say so).
        bus = await start_event_bus(settings.redis_url, poll_seconds=settings.bus_poll_seconds)
        stack.push_async_callback(bus.close)
    events = EventLog(store, bus, redactor=redactor, metrics=metrics)
    stack.push_async_callback(events.close)
    directory = await _agents(stack, settings, store, given, metrics)
    if isinstance(directory, CatalogAgents):  # hot reloads included
        directory.teach_secrets(redactor)
    runs = RunManager(
        store,
        events,
        directory,
        instance=instance or settings.instance_id,
        lease_seconds=settings.lease_seconds,
        liveness_seconds=settings.liveness_seconds,
        titles=titles,
        tenant_limits=TenantLimits.from_settings(settings),
        telemetry=RunTelemetry(ObservedTelemetry(metrics, state.tracing), redactor),
        role=settings.role,
        worker_concurrency=settings.worker_concurrency,
        queue_poll_seconds=settings.bus_poll_seconds,
        content_rules=ContentRules(settings.max_inline_content_bytes),
        # The caller's uploads (/v1/files), which a message may name by file_id.
        files=given.files
        or files_for(
            store,
            max_bytes=settings.max_file_bytes,
            quota_bytes=settings.tenant_file_quota_bytes or None,
        ),
    )
    stack.push_async_callback(runs.aclose)
    if isinstance(directory, CatalogAgents):  # stopped first: no reload while runs end
        await stack.enter_async_context(
            watch_catalog(directory, settings.catalog_poll_seconds, given.catalog_feed)
        )
    swept = await runs.keep_leases()
    if swept:
        logger.warning("settled %d run(s) whose server stopped", len(swept))
    # The first request must not pay for importing the model layer.
    importlib.import_module("pydantic_ai.models")
    catalog = directory if isinstance(directory, CatalogAgents) else None
    return Parts(store, events, runs, Threads(events, store), directory, catalog)


async def _agents(
    stack: AsyncExitStack, settings: Settings, store: Store, given: _Given, metrics: Metrics
) -> AgentDirectory:
    """The agents given, else the catalog's (every one compiled now: the leader's for a
    follower, else the files'), else ``assistant``."""
    if given.agents is not None:
        agents = given.agents
        if not isinstance(agents, Mapping):
            agents = agents(store)
            for agent in agents.values():
                _close_with(stack, agent)
        default = DEFAULT_AGENT if DEFAULT_AGENT in agents else next(iter(agents))
        return FixedAgents(agents, default)
    # One set of shared clients for every tool the catalog builds, closed after its agents.
    egress = EgressPolicy(EgressAllowList.parse(settings.egress_allow))
    # A tool's ExecutionContext.get_binary_stream reads the calling user's uploads.
    deps = ToolDependencies(store=store, egress=egress, binaries=StoredBinaries(store))
    stack.push_async_callback(deps.aclose)
    feed = given.catalog_feed
    catalog = (
        open_catalog(settings, store, deps, given.model_for, metrics)
        if feed is None
        else await open_followed_catalog(feed, settings, store, deps, given.model_for, metrics)
    )
    if catalog is not None:
        stack.push_async_callback(catalog.aclose)
        catalog.compile_all()
        return catalog
    assistant = default_agent(store, settings)
    _close_with(stack, assistant)
    return FixedAgents({assistant.name: assistant}, DEFAULT_AGENT)


def _close_with(stack: AsyncExitStack, agent: Agent) -> None:
    """Close ``agent`` when the app stops, after the runs, and its memory after it (which stops
    its background observation)."""
    if isinstance(agent.memory, Memory):
        stack.push_async_callback(agent.memory.aclose)
    stack.push_async_callback(agent.aclose)
