"""``runyard db``: database maintenance (applying migrations).

Like every command, it imports what it uses when it runs, so that ``runyard --help`` stays quick.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["db_app"]

db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True, rich_markup_mode=None)


@db_app.command("upgrade")
def upgrade_command(
    url: Annotated[
        str | None,
        typer.Option(help="Database URL; default RUNYARD_DATABASE_URL, else sqlite:///runyard.db."),
    ] = None,
) -> None:
    """Apply every pending migration and print the revision the database is now at."""
    import asyncio

    from rich.console import Console
    from sqlalchemy.exc import SQLAlchemyError

    from runyard.cli.display import describe_database
    from runyard.config import Settings
    from runyard.storage import StorageError, head_revision, parse_database_url, upgrade

    console = Console()
    target = url or Settings().database_url
    where = describe_database(target)
    with console.status(f"Migrating {where}…"):
        try:
            in_memory = parse_database_url(target).backend == "memory"
            asyncio.run(upgrade(target))
        except (StorageError, SQLAlchemyError, OSError) as exc:
            console.print(f"[red]Error:[/] cannot migrate {where}: {exc}", soft_wrap=True)
            raise typer.Exit(1) from exc
    if in_memory:
        console.print(f"{where}: no schema to migrate", soft_wrap=True)
    else:
        console.print(f"{where}: at revision [bold]{head_revision()}[/] (head)", soft_wrap=True)
