"""What ``runyard serve`` runs: the HTTP service on uvicorn (one worker, lifespan on), and the gRPC service
(``runyard.grpc``, unless ``--grpc-port 0``) on the same event loop, serving the same parts, with
a start-up report.

The listening socket is bound before the app's lifespan opens anything, and gRPC's port tried, so
a second server whose HTTP or gRPC port is taken stops with one line and touches no database. The
report is printed once the lifespan has opened the store and built the agents, so it states what
is really serving — including, plainly, when that is the offline demo model. SIGTERM and Ctrl-C
drain the app (``AppState.drain``: 503 for new requests, runs let end or handed over, every event
stream told the server is going away) before uvicorn waits for open connections, which an event
stream would hold forever; gRPC drains first (health ``NOT_SERVING``, every stream ended saying
where to resume).
"""

from __future__ import annotations

import contextlib
import gc
import signal
import socket
import sys
from collections.abc import Mapping
from types import FrameType
from typing import Any, NoReturn

import typer
import uvicorn
from fastapi import FastAPI
from pydantic import ValidationError
from rich.console import Console

from runyard.cli.display import is_loopback
from runyard.cli.serve_report import AgentSummary, ServeReport, print_report
from runyard.cli.startup_refusal import StartupRefusal
from runyard.config import Settings
from runyard.grpc import GrpcCatalogFeed, GrpcServer, GrpcState
from runyard.http import create_app
from runyard.http.state import AppState
from runyard.observability import configure_logging, resolve_format
from runyard.service.bus import Delivery
from runyard.storage import parse_database_url

__all__ = ["serve_until_stopped"]

_BACKLOG = 2048  # uvicorn's default


class _Server(uvicorn.Server):
    """uvicorn's server, reporting once it listens (so ``--port 0`` reports the real port) and
    draining the app before it waits for open connections."""

    def __init__(self, app: FastAPI, settings: Settings, console: Console) -> None:
        json_logs = resolve_format(settings.log_format, sys.stderr) == "json"
        self._refusal = StartupRefusal(app)
        super().__init__(
            uvicorn.Config(
                self._refusal,
                host=settings.host,
                port=settings.port,
                workers=1,
                lifespan="on",
                log_level="info",
                timeout_graceful_shutdown=settings.shutdown_grace_seconds,
                # JSON: uvicorn's records go through the root logger's one JSON handler too.
                log_config=None if json_logs else uvicorn.config.LOGGING_CONFIG,
            )
        )
        self._app = app
        self._settings = settings
        self._console = console
        self._grpc: GrpcServer | None = None
        self.failure: str | None = None
        """Why the server stopped before it served (``runyard serve`` exits 1 with it)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        # gRPC listens first, answering health NOT_SERVING while the lifespan opens everything.
        try:
            grpc_address = await self._listen_grpc()
        except OSError as exc:
            self.failure = f"runyard: {exc}"
            self.should_exit = True
            return
        try:
            await super().startup(sockets)
        except SystemExit:  # uvicorn's way out of a failed lifespan
            if self._refusal.refusal is None:
                raise
            self.failure = f"runyard: cannot start: {self._refusal.refusal}"
            self.should_exit = True
        state = self._app.state.runyard
        if self.should_exit or not isinstance(state, AppState) or state.parts is None:
            if self._grpc is not None:
                await self._grpc.drain(0)
            return
        if self._grpc is not None:
            await self._grpc.serve(state.parts)
        port = self.servers[0].sockets[0].getsockname()[1] if self.servers else self._settings.port
        agents, rejected = _agents(self._app), _rejected(self._app)
        report = ServeReport.of(
            self._settings,
            self._settings.host,
            port,
            agents,
            rejected,
            catalog=_catalog_source(self._app),
            grpc=grpc_address,
            delivery=_delivery(self._app),
        )
        print_report(self._console, report)
        # What start-up built (modules, models, routes, agents: ~200k objects) lives as long as
        # the process. Out of the cyclic collector's sight, it is no longer walked by every
        # full collection while serving (a tenth of a second or more each), nor by the several
        # the interpreter runs at exit (half a second of CPU, docs/benchmarks.md). About ten
        # objects are cyclic garbage at this point; a catalog reload that drops the start-up
        # agents keeps them, once.
        gc.freeze()

    async def _listen_grpc(self) -> str | None:
        """The gRPC server listening on ``grpc_port`` (health ``NOT_SERVING`` until ``serve``);
        its address (None: off). ``OSError`` when the port is taken."""
        settings, state = self._settings, self._app.state.runyard
        if not settings.grpc_port or not isinstance(state, AppState):
            return None
        grpc = GrpcServer(
            GrpcState(settings, state.redactor, metrics=state.metrics, tracing=state.tracing),
            settings.host,
            settings.grpc_port,
        )
        try:
            port = await grpc.start()
        except (OSError, RuntimeError) as exc:
            await grpc.drain(0)
            raise OSError(_grpc_port_taken(grpc.address, str(exc))) from exc
        self._grpc = grpc
        return _address(settings.host, port)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self._grpc is not None:
            await self._grpc.drain(self._settings.shutdown_grace_seconds)
        for server in self.servers:
            server.close()  # no new connections; requests on open ones get 503 while draining
        state = self._app.state.runyard
        if isinstance(state, AppState):
            await state.drain()
        await super().shutdown(sockets)


def _agents(app: FastAPI) -> tuple[AgentSummary, ...]:
    """The agents the started app serves (its lifespan has built them by now)."""
    state = app.state.runyard
    if not isinstance(state, AppState) or state.parts is None:
        return ()
    return tuple(
        AgentSummary(
            f"{agent.name}@{agent.tenant}" if agent.tenant else agent.name, agent.model, agent.tools
        )
        for agent in state.parts.agents.served(None)
    )


def _delivery(app: FastAPI) -> Delivery:
    """How the started app's event streams learn of other replicas' events (Redis answered?)."""
    state = app.state.runyard
    if not isinstance(state, AppState) or state.parts is None:
        return "live"
    return state.parts.events.bus.delivery


def _catalog_source(app: FastAPI) -> str | None:
    """Where the catalog the started app serves comes from (its directory, or the leader it
    follows); None when it serves none."""
    state = app.state.runyard
    if not isinstance(state, AppState) or state.parts is None or state.parts.catalog is None:
        return None
    return state.parts.catalog.source


def _rejected(app: FastAPI) -> tuple[str, ...]:
    """Each error of each catalog file the started app refused, as ``file:line: field: message``."""
    state = app.state.runyard
    if not isinstance(state, AppState) or state.parts is None or state.parts.catalog is None:
        return ()
    return tuple(str(error) for error in state.parts.catalog.load.errors)


def serve_until_stopped(flags: Mapping[str, Any], insecure: bool) -> None:
    """``runyard serve`` with its flags (settings by name, None where not given): serve until
    Ctrl-C or SIGTERM (exits 1 when it cannot)."""
    # Flags given on the command line win over the environment; pydantic validates them too.
    try:
        settings = Settings(**{name: value for name, value in flags.items() if value is not None})
    except ValidationError as exc:
        _fail(
            "\n".join(
                f"runyard: RUNYARD_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']} "
                f"(got {e['input']!r})"
                for e in exc.errors()
            )
        )
    if settings.auth == "none" and not insecure and not is_loopback(settings.host):
        _fail(
            f"runyard: refusing to serve on {settings.host} with RUNYARD_AUTH=none: anyone who "
            "can reach it would act with no authentication. Set RUNYARD_AUTH=keys (API keys) or "
            "proxy (behind an authenticating proxy), bind 127.0.0.1, or pass --insecure."
        )
    _check_role(settings)
    feed = _catalog_feed(settings)
    console = Console()
    configure_logging(settings.log_format)
    try:
        listening = _listen(settings.host, settings.port)
    except OSError as exc:
        _fail(f"runyard: cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}")
    _check_grpc_port(settings, listening)
    # uvicorn stops gracefully on SIGTERM or Ctrl-C, then raises the signal again with the
    # handler it found: make that a KeyboardInterrupt for both, so a clean stop exits 0.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server = _Server(create_app(settings, catalog_feed=feed), settings, console)
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[listening])
    finally:
        signal.signal(signal.SIGTERM, previous)
        listening.close()
    if server.failure is not None:
        _fail(server.failure)
    console.print("runyard stopped.", style="dim")


def _check_grpc_port(settings: Settings, listening: socket.socket) -> None:
    """Exit when gRPC's port is taken, before anything starts: grpc's own bind failure is a raw
    C-core log line that names no setting. (Listened on and let go at once; the rare server
    that takes the port in between is reported by ``_listen_grpc``, in the same words.)"""
    if not settings.grpc_port:
        return
    try:
        _listen(settings.host, settings.grpc_port).close()
    except OSError as exc:
        listening.close()
        address = _address(settings.host, settings.grpc_port)
        _fail(f"runyard: {_grpc_port_taken(address, exc.strerror or str(exc))}")


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _grpc_port_taken(address: str, reason: str) -> str:
    # gRPC's port is not derived from the HTTP port: it is what workers and catalog followers
    # dial, so a second server moves it by name (docs/configuration.md).
    return (
        f"cannot listen for gRPC on {address}: {reason}; "
        "set RUNYARD_GRPC_PORT (--grpc-port) to a free port, or 0 to serve no gRPC"
    )


def _check_role(settings: Settings) -> None:
    """Exit when the role cannot work on the database: api and worker replicas share their run
    queue through PostgreSQL (a SQLite file belongs to one host, an in-memory store to one
    process)."""
    if settings.role == "all":
        return
    try:
        backend = parse_database_url(settings.database_url).backend
    except ValueError:
        return  # the store says what is wrong with the URL when it opens it
    if backend != "postgresql":
        _fail(
            f"runyard: RUNYARD_ROLE={settings.role} (--role) needs a PostgreSQL database shared "
            f"by the api and worker replicas, but RUNYARD_DATABASE_URL is {backend}: set "
            "RUNYARD_DATABASE_URL=postgresql://…, or serve with --role all (docs/deploy.md)"
        )


def _catalog_feed(settings: Settings) -> GrpcCatalogFeed | None:
    """The leader ``--catalog`` names (None: the catalog's files); exits when it is malformed,
    or when catalog files are named too."""
    if not settings.catalog_source:
        return None
    if settings.catalog_dir:
        _fail(
            "runyard: RUNYARD_CATALOG_DIR and --catalog (RUNYARD_CATALOG_SOURCE) both name a "
            "catalog: a follower has no catalog files of its own; unset one"
        )
    try:
        return GrpcCatalogFeed.of_url(settings.catalog_source, settings.catalog_source_key)
    except ValueError as exc:
        _fail(f"runyard: {exc}")


def _fail(message: str) -> NoReturn:
    Console(stderr=True).print(message, style="red", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (``OSError`` when the address is taken)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # listen() now, not when uvicorn starts serving: on Linux two sockets with SO_REUSEADDR
        # may both bind a port as long as neither listens yet.
        sock.listen(_BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
