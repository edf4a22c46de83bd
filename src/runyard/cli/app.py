"""The ``runyard`` command: one typer app with ``serve``, ``chat``, ``db``, ``agents``, ``route``
and ``keys``."""

from __future__ import annotations

import typer

from runyard.cli.agents import agents_app
from runyard.cli.chat.command import chat
from runyard.cli.db import db_app
from runyard.cli.keys import keys_app
from runyard.cli.route import route
from runyard.cli.serve import serve

__all__ = ["app", "main"]

app = typer.Typer(
    name="runyard",
    help="runyard: a self-hostable agent inference service.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    # Plain help and usage errors, as click writes them: rich's formatting costs ~0.3 s of
    # imports on every `runyard --help` (docs/benchmarks.md, cold start). The sub-apps say so too.
    rich_markup_mode=None,
)
app.command("serve")(serve)
app.command("chat")(chat)
app.add_typer(db_app, name="db")
app.add_typer(agents_app, name="agents")
app.command("route")(route)
app.add_typer(keys_app, name="keys")


def main() -> None:
    """Entry point of the ``runyard`` script and of ``python -m runyard``."""
    app()
