"""``runyard chat``: a terminal client for a running ``runyard serve``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from runyard.cli.display import http_url
from runyard.ids import new_id

if TYPE_CHECKING:
    from rich.console import Console

    from runyard.cli.chat.session import ChatSession
    from runyard.config import Settings
    from runyard.protocol import RunFinishPayload

__all__ = ["chat"]

_EXIT_CODES = {"completed": 0, "error": 1, "cancelled": 130}

# A server bound to every interface is reached on the loopback address of the same family.
_WILDCARD_TO_LOOPBACK = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def chat(
    thread_id: Annotated[
        str | None, typer.Argument(help="Thread to talk in; a new one when left out.")
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            help="Base URL of the runyard server. (default http://RUNYARD_HOST:RUNYARD_PORT, "
            "as `runyard serve` binds: http://127.0.0.1:8400)",
            show_default=False,
        ),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(help="User id (X-Runyard-User), for a server with RUNYARD_AUTH=proxy."),
    ] = None,
    tenant: Annotated[
        str | None,
        typer.Option(help="Tenant id (X-Runyard-Tenant), for a server with RUNYARD_AUTH=proxy."),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="RUNYARD_API_KEY",
            help="API key (runyard keys create), for a server with RUNYARD_AUTH=keys.",
            show_default=False,
        ),
    ] = None,
    message: Annotated[
        str | None,
        typer.Option("--message", "-m", help="Send this one message, show its run, then exit."),
    ] = None,
) -> None:
    """Chat with an agent: live tree of its run, tool calls, approvals at the prompt.

    Ctrl-C during a run cancels it; Ctrl-D (or /exit) at the prompt quits.
    """
    # Imported here, when the command runs: `runyard --help` loads no HTTP client.
    from rich.console import Console
    from rich.text import Text

    from runyard.cli.chat.client import Connection, ServerError
    from runyard.cli.chat.feed import FeedError
    from runyard.cli.chat.session import ChatSession
    from runyard.config import Settings

    console = Console()
    connection = Connection(url or _default_url(Settings()), tenant, user, api_key)
    session = ChatSession(connection, thread_id or new_id("thread"), console)
    try:
        if message is not None:
            raise typer.Exit(_EXIT_CODES[_turn(session, message, console).status])
        _prompt_loop(session, console)
    except (ServerError, FeedError) as exc:
        console.print(Text(f"Error: {exc}", style="red"))
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        console.print(
            Text("Stopped waiting; the run may still be finishing on the server.", style="yellow")
        )
        raise typer.Exit(130) from None


def _default_url(settings: Settings) -> str:
    """The URL of the server ``runyard serve`` would start with the same settings."""
    return http_url(_WILDCARD_TO_LOOPBACK.get(settings.host, settings.host), settings.port)


def _prompt_loop(session: ChatSession, console: Console) -> None:
    from rich.text import Text

    from runyard.cli.chat.client import ServerError
    from runyard.cli.chat.message_input import MessageReader

    console.print(
        Text.assemble(
            ("thread ", "dim"),
            (session.thread_id, "bold"),
            (
                f" on {session.connection.url} — a line ending in \\ continues the message, "
                "Ctrl-C cancels a run, Ctrl-D or /exit quits",
                "dim",
            ),
        )
    )
    reader = MessageReader(console)
    while True:
        try:
            message = reader.read()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if message.strip() in {"/exit", "/quit"}:
            return
        if not message.strip():
            continue
        try:
            _turn(session, message, console)
        except ServerError as exc:  # e.g. 409: the thread is busy; the next message may work
            console.print(Text(f"Error: {exc}", style="red"))


def _turn(session: ChatSession, message: str, console: Console) -> RunFinishPayload:
    from rich.text import Text

    finish = session.turn(message)
    if finish.status != "completed":
        reason = f": {finish.reason}" if finish.reason else ""
        console.print(Text(f"run {finish.status}{reason}", style="yellow"))
    return finish
