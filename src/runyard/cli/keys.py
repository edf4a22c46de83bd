"""``runyard keys``: create, list and revoke API keys in the service's database.

``create`` writes the key alone on stdout (``KEY=$(runyard keys create …)`` captures it) and what
it is for on stderr; the key is shown this once, as the database keeps only its hash. ``list``
never shows a key, only ids. ``revoke`` takes a key id, or a whole key someone leaked. Each command
imports the service and the database when it runs, so that ``runyard --help`` stays quick.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from runyard.ids import now_ms

if TYPE_CHECKING:
    from rich.table import Table

    from runyard.service.api_keys import IssuedApiKey
    from runyard.storage import ApiKey, Store

__all__ = ["keys_app"]

keys_app = typer.Typer(
    help="API keys: create (shown once), list (never shown), revoke.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_T = TypeVar("_T")
# Piped output is read by scripts and grep: one row per key, however wide.
_PIPE_WIDTH = 240

DatabaseOption = Annotated[
    str | None,
    typer.Option(help="Database URL; default RUNYARD_DATABASE_URL, else sqlite:///runyard.db."),
]


# Whom RUNYARD_AUTH=none serves (``runyard.service.Owner()``): a person who turns keys on with a
# key of their own keeps the threads they had. Literal here, so ``--help`` imports no service.
_NO_AUTH_OWNER = "default"


@keys_app.command("create")
def create(
    tenant: Annotated[
        str, typer.Option(help="The tenant the key acts for (the default is RUNYARD_AUTH=none's).")
    ] = _NO_AUTH_OWNER,
    user: Annotated[
        str, typer.Option(help="The user the key acts for (the default is RUNYARD_AUTH=none's).")
    ] = _NO_AUTH_OWNER,
    role: Annotated[
        str, typer.Option(help="member, or admin (may also call admin endpoints).")
    ] = "member",
    expires: Annotated[
        str | None,
        typer.Option(help="Lifetime: 90m, 12h, 30d, 8w; default: until revoked."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="What the key is for, to tell keys apart.")
    ] = None,
    url: DatabaseOption = None,
) -> None:
    """Create a key for a tenant's user and print it, once."""
    from runyard.service.api_keys import (
        InvalidDuration,
        InvalidKeyRequest,
        issue_api_key,
        parse_duration,
    )

    try:
        expires_in = None if expires is None else parse_duration(expires)
    except InvalidDuration as error:
        _fail(f"--expires: {error}")

    async def issue(store: Store) -> IssuedApiKey:
        return await issue_api_key(
            store, tenant_id=tenant, user_id=user, role=role, name=name, expires_in=expires_in
        )

    try:
        issued = _run(url, issue)
    except InvalidKeyRequest as error:
        _fail(f"--{error.field}: {error.problem}")
    typer.echo(issued.token)
    key = issued.key
    typer.echo(
        f"Created API key {key.key_id} for user {key.user_id} of tenant {key.tenant_id} "
        f"({key.role}, {_lifetime(key)}). It is shown only this once: "
        "the database keeps only its hash.",
        err=True,
    )


@keys_app.command("list")
def list_keys(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    url: DatabaseOption = None,
) -> None:
    """Every key's id, owner, role, name and lifetime (never the key itself), oldest first."""
    from rich.console import Console

    async def listed(store: Store) -> list[ApiKey]:
        return await store.list_api_keys(tenant_id=tenant)

    keys = _run(url, listed)
    if not keys:
        typer.echo("No API keys" + (f" of tenant {tenant}." if tenant else "."))
        return
    console = Console()
    if not console.is_terminal:
        console = Console(width=_PIPE_WIDTH)
    console.print(_table(keys, now_ms()))


@keys_app.command("revoke")
def revoke(
    key: Annotated[str, typer.Argument(metavar="ID", help="A key id (ryk_…), or the whole key.")],
    url: DatabaseOption = None,
) -> None:
    """Revoke a key: every request with it is refused from the next one on. Revoking twice is
    harmless."""
    from runyard.service.api_keys import key_id_of

    key_id = key_id_of(key) or key
    asked_at = now_ms()

    async def revoked(store: Store) -> ApiKey | None:
        return await store.revoke_api_key(key_id, at=asked_at)

    found = _run(url, revoked)
    if found is None:
        _fail(f"No API key {key_id}.")
    assert found.revoked_at is not None, "revoke_api_key returns the key revoked"
    owner = f"user {found.user_id} of tenant {found.tenant_id}"
    if found.revoked_at < asked_at:
        typer.echo(f"API key {key_id} ({owner}) was already revoked {_time(found.revoked_at)}.")
    else:
        typer.echo(f"Revoked API key {key_id} ({owner}): requests with it are refused from now on.")


def _run(url: str | None, work: Callable[[Store], Awaitable[_T]]) -> _T:
    """``work`` on the store at ``url``; a database that cannot be opened exits 1."""
    import asyncio

    from runyard.config import Settings

    target = url or Settings().database_url

    async def run() -> _T:
        async with _opened(target) as store:
            return await work(store)

    return asyncio.run(run())


@asynccontextmanager
async def _opened(url: str) -> AsyncIterator[Store]:
    from sqlalchemy.exc import SQLAlchemyError

    from runyard.cli.display import describe_database
    from runyard.storage import StorageError, open_store, parse_database_url

    where = describe_database(url)
    try:
        if parse_database_url(url).backend == "memory":
            _fail(f"{where}: keys kept there would be gone when this command ends; give a database")
        store = await open_store(url, vectors="exact")  # keys never rank vectors
    except (StorageError, SQLAlchemyError, OSError) as error:
        _fail(f"Error: cannot open {where}: {error}")
    try:
        yield store
    finally:
        await store.close()


def _table(keys: list[ApiKey], now: int) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table("key id", "tenant", "user", "role", "name", "created", "expires", "state")
    table.columns[0].no_wrap = True
    for key in keys:
        table.add_row(
            key.key_id,
            key.tenant_id,
            key.user_id,
            key.role,
            Text(key.name or ""),  # the operator's own words: not rich markup
            _time(key.created_at),
            _time(key.expires_at, "never"),
            _state(key, now),
        )
    return table


def _state(key: ApiKey, now: int) -> str:
    if key.revoked_at is not None:
        return f"revoked {_time(key.revoked_at)}"
    if key.expires_at is not None and now >= key.expires_at:
        return "expired"
    return "active" + (f", used {_time(key.last_used_at)}" if key.last_used_at else "")


def _lifetime(key: ApiKey) -> str:
    return "never expires" if key.expires_at is None else f"expires {_time(key.expires_at)}"


def _time(epoch_ms: int | None, absent: str = "-") -> str:
    if epoch_ms is None:
        return absent
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _fail(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(1)
