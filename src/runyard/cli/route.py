"""``runyard route``: which agent a request would get, and why, from a catalog on disk (a dry run).

It prints the decision and one row per rule of the tenant's routing: matched, no match (with the
field tests that failed and the values they saw) or skipped. A context that is not a JSON object
of the right fields, and a catalog with a rejected file, exit 1: a routing read from a partial
catalog could disagree with the one the operator meant. It imports the router when it runs, so that
``runyard --help`` stays quick.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from runyard.cli.agents import DEFAULT_CATALOG_DIR, read_catalog

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails
    from rich.table import Table

    from runyard.registry import Catalog
    from runyard.routing import InvocationContext, RouteExplanation

__all__ = ["route"]

_REASONS = {
    "explicit": "explicit (the request named the agent)",
    "rule": "rule (the first rule that matched)",
    "default": "default (no rule matched)",
}


def route(
    path: Annotated[
        Path, typer.Argument(help="A catalog directory or one file.", show_default=True)
    ] = DEFAULT_CATALOG_DIR,
    tenant: Annotated[
        str, typer.Option(help="The tenant the request acts for (X-Runyard-Tenant).")
    ] = "default",
    context: Annotated[
        str,
        typer.Option(
            help="The rest of the invocation context as a JSON object: user, user_role, "
            'ui_page, flags, metadata, e.g. \'{"user_role": "finance", "flags": {"beta": true}}\'.'
        ),
    ] = "{}",
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="An agent the request names: it wins if the tenant has it."),
    ] = None,
) -> None:
    """Show which agent of the catalog a request goes to, and how every routing rule decided."""
    from rich.console import Console

    from runyard.routing import RoutingError, explain_route

    invocation = _context(tenant, context)
    catalog = _valid_catalog(path)
    try:
        explained = explain_route(catalog, invocation, agent_id=agent)
    except RoutingError as error:
        typer.echo(f"Cannot route: {error}.")
        raise typer.Exit(1) from None
    console = Console()
    console.print(_summary(explained), highlight=False, markup=False)
    if explained.rules:
        console.print(_rules_table(explained))


def _context(tenant: str, text: str) -> InvocationContext:
    from pydantic import ValidationError

    from runyard.routing import InvocationContext

    try:
        fields: Any = json.loads(text)
    except json.JSONDecodeError as error:
        _fail(f"--context is not valid JSON: {error}")
    if not isinstance(fields, dict):
        _fail('--context must be a JSON object, e.g. \'{"user_role": "finance"}\'')
    if "tenant" in fields:
        _fail("--context: give the tenant with --tenant, not in the context")
    try:
        return InvocationContext.model_validate({**fields, "tenant": tenant})
    except ValidationError as error:
        _fail("\n".join(_context_error(detail) for detail in error.errors()))


def _context_error(detail: ErrorDetails) -> str:
    location = ".".join(str(part) for part in detail["loc"])
    option = "--tenant" if location == "tenant" else f"--context: {location}"
    return f"{option}: {detail['msg']}"


def _valid_catalog(path: Path) -> Catalog:
    loaded = read_catalog(path)
    if loaded.rejected:
        for error in loaded.errors:
            typer.echo(str(error))
        _fail(
            f"{path}: {len(loaded.rejected)} file(s) rejected; fix them before routing "
            f"(runyard agents validate {path})"
        )
    return loaded.catalog


def _summary(explained: RouteExplanation) -> str:
    decision = explained.decision
    pinned = any(rule.rule_id == decision.rule_id and rule.version for rule in explained.rules)
    if explained.routing_source is None:
        routing = f"none for tenant {explained.tenant}"
    else:
        owner = f"tenant {explained.routing_tenant}" if explained.routing_tenant else "shared"
        routing = f"{owner} ({explained.routing_source})"
    return "\n".join(
        [
            f"agent    {decision.agent_id}",
            f"version  {decision.version}" + (" (pinned by the rule)" if pinned else ""),
            f"rule     {decision.rule_id or '-'}",
            f"reason   {_REASONS[decision.reason]}",
            f"routing  {routing}",
        ]
    )


def _rules_table(explained: RouteExplanation) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table("#", "rule", "priority", "agent", "outcome", "why")
    for number, rule in enumerate(explained.rules, start=1):
        why = Text("\n".join(str(reason) for reason in rule.reasons))
        agent = rule.agent_id + (f"@{rule.version[:12]}" if rule.version else "")
        table.add_row(str(number), rule.rule_id, str(rule.priority), agent, rule.outcome, why)
    return table


def _fail(message: str) -> NoReturn:
    typer.echo(message)
    raise typer.Exit(1)
