"""``runyard serve``: the HTTP service on uvicorn (one worker, lifespan on), with a start-up report.

The report is printed once the app's lifespan has opened the store and built the agents, so it
states what is really serving — including, plainly, when that is the offline demo model.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Annotated, Any

import typer
import uvicorn
from fastapi import FastAPI
from rich.console import Console

from runyard.cli.serve_report import AgentSummary, ServeReport, print_report
from runyard.config import Settings
from runyard.http import create_app
from runyard.http.state import AppState

__all__ = ["serve"]


class _Server(uvicorn.Server):
    """uvicorn's server, reporting once it listens (so ``--port 0`` reports the real port)."""

    def __init__(self, app: FastAPI, settings: Settings, console: Console) -> None:
        super().__init__(
            uvicorn.Config(
                app,
                host=settings.host,
                port=settings.port,
                workers=1,
                lifespan="on",
                log_level="info",
            )
        )
        self._app = app
        self._settings = settings
        self._console = console

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit:
            return
        port = self.servers[0].sockets[0].getsockname()[1] if self.servers else self._settings.port
        report = ServeReport.of(self._settings, self._settings.host, port, _agents(self._app))
        print_report(self._console, report)


def _agents(app: FastAPI) -> tuple[AgentSummary, ...]:
    """The agents the started app serves (its lifespan has built them by now)."""
    state = app.state.runyard
    if not isinstance(state, AppState) or state.parts is None:
        return ()
    return tuple(
        AgentSummary(name, agent.model_label, tuple(agent.tools))
        for name, agent in state.parts.agents.items()
    )


def serve(
    host: Annotated[
        str | None, typer.Option(help="Address to bind. (env RUNYARD_HOST, default 127.0.0.1)")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help="HTTP port; 0 picks a free one. (env RUNYARD_PORT, default 8400)"),
    ] = None,
    grpc_port: Annotated[
        int | None,
        typer.Option(
            help="gRPC port (accepted; gRPC is not served yet). (env RUNYARD_GRPC_PORT, default 8401)"
        ),
    ] = None,
) -> None:
    """Serve the agents over HTTP until Ctrl-C.

    The database, event bus and model come from RUNYARD_DATABASE_URL, RUNYARD_REDIS_URL and
    RUNYARD_MODEL (or a provider key such as OPENAI_API_KEY); with none, the offline demo model.
    """
    flags: dict[str, Any] = {"host": host, "port": port, "grpc_port": grpc_port}
    # Flags given on the command line win over the environment; pydantic validates them too.
    settings = Settings(**{name: value for name, value in flags.items() if value is not None})
    console = Console()
    # uvicorn shuts down gracefully on Ctrl-C, then re-raises it: the stop was clean.
    with contextlib.suppress(KeyboardInterrupt):
        _Server(create_app(settings), settings, console).run()
    console.print("runyard stopped.", style="dim")
