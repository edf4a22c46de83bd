"""``runyard agents``: check a catalog directory and look at what it defines, without a server.

``validate`` is the command for CI and editors: exit status 1 and one ``file:line: field: message``
line per error. ``list`` and ``show`` read the same files the way the loader does. Each command
imports the catalog's loader when it runs, so that ``runyard --help`` stays quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from runyard.registry import AgentSpec, CatalogEntry, CatalogLoad

__all__ = ["DEFAULT_CATALOG_DIR", "agents_app", "read_catalog"]

# The directory `runyard serve` reads (runyard.service.DEFAULT_CATALOG_DIR; a test holds the two
# equal), written here so that building the command line imports no service.
DEFAULT_CATALOG_DIR = Path("agents")

agents_app = typer.Typer(
    help="Check and inspect a catalog of agents (docs/catalog.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

CatalogPath = Annotated[
    Path, typer.Argument(help="A catalog directory (every *.yaml/*.yml under it) or one file.")
]
OptionalCatalogPath = Annotated[
    Path,
    typer.Argument(help="A catalog directory or one file.", show_default=True),
]


@agents_app.command("validate")
def validate(path: CatalogPath) -> None:
    """Check every file; print each error as file:line: field: message and exit 1 if any."""
    loaded = read_catalog(path)
    for error in loaded.errors:
        typer.echo(str(error))
    catalog = loaded.catalog
    counts = (
        f"{len(catalog.agents)} agent(s), {len(catalog.tools)} tool(s), "
        f"{len(catalog.routing)} routing(s)"
    )
    if loaded.rejected:
        typer.echo(f"{path}: {len(loaded.rejected)} file(s) rejected; valid: {counts}")
        raise typer.Exit(1)
    typer.echo(f"{path}: valid, {counts}")


@agents_app.command("list")
def list_agents(path: OptionalCatalogPath = DEFAULT_CATALOG_DIR) -> None:
    """Every agent of the catalog with its tenant, model, tools and version."""
    from rich.console import Console
    from rich.table import Table

    loaded = read_catalog(path)
    table = Table("tenant", "id", "model", "tools", "version", "file")
    for (tenant, agent_id), entry in sorted(loaded.catalog.agents.items(), key=_by_scope):
        spec = entry.spec
        tools = ", ".join(ref.name for ref in spec.tools)
        table.add_row(tenant or "*", agent_id, spec.model, tools, entry.version[:12], _where(entry))
    console = Console()
    console.print(table)
    _report_rejected(loaded)


@agents_app.command("show")
def show(
    agent_id: Annotated[str, typer.Argument(metavar="ID", help="The agent's id.")],
    path: OptionalCatalogPath = DEFAULT_CATALOG_DIR,
    tenant: Annotated[
        str | None,
        typer.Option(help="Show the agent this tenant gets (its own spec, else the shared one)."),
    ] = None,
) -> None:
    """One agent's spec as the catalog holds it (defaults filled in), with its version."""
    import yaml  # type: ignore[import-untyped]  # types-PyYAML is not installed yet

    loaded = read_catalog(path)
    entry = loaded.catalog.agent(agent_id, tenant)
    if entry is None:
        scope = f" for tenant {tenant!r}" if tenant else ""
        typer.echo(f"No agent {agent_id!r}{scope} in {path}.")
        _report_rejected(loaded)
        raise typer.Exit(1)
    typer.echo(f"# version {entry.version}\n# from {_where(entry)}")
    data = entry.spec.model_dump(mode="json", by_alias=True)
    typer.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), nl=False)


def read_catalog(path: Path) -> CatalogLoad:
    """The catalog at ``path``, checked against the tools the server would have (its factories,
    installed plugins' included, and its plain built-in tools); a missing path, or a plugin that
    does not load, exits 1."""
    from runyard.errors import ConfigurationError
    from runyard.service import load_served_catalog

    try:
        return load_served_catalog(path)
    except FileNotFoundError:
        typer.echo(f"No catalog at {path}: pass a directory of YAML files or one file.")
        raise typer.Exit(1) from None
    except ConfigurationError as exc:
        typer.echo(f"Cannot check {path}: {exc}")
        raise typer.Exit(1) from None


def _report_rejected(loaded: CatalogLoad) -> None:
    if loaded.rejected:
        typer.echo(f"{len(loaded.rejected)} file(s) rejected (runyard agents validate shows why):")
        for rejected in loaded.rejected:
            typer.echo(f"  {rejected.file}")


def _where(entry: CatalogEntry[AgentSpec]) -> str:
    return f"{entry.source}:{entry.line}"


def _by_scope(item: tuple[tuple[str | None, str], object]) -> tuple[str, str]:
    (tenant, agent_id), _ = item
    return (tenant or "", agent_id)
