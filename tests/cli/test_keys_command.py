"""``runyard keys create|list|revoke`` on a SQLite file: the key printed once verifies, a listing
never shows it, a revoked key stops verifying, bad options are named and store nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from runyard.cli import app
from runyard.service.api_keys import KeyIdentity, hash_api_key, verify_api_key
from runyard.storage import open_store


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'keys.db'}"


def keys(url: str, *args: str) -> Result:
    return CliRunner().invoke(app, ["keys", *args, "--url", url])


def create(url: str, *args: str) -> str:
    result = keys(url, "create", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def verify(url: str, token: str) -> KeyIdentity | None:
    async def verified() -> KeyIdentity | None:
        store = await open_store(url)
        try:
            return await verify_api_key(store, token)
        finally:
            await store.close()

    return asyncio.run(verified())


def test_create_prints_the_key_alone_on_stdout_and_it_verifies(url: str) -> None:
    result = keys(url, "create", "--tenant", "acme", "--user", "alice", "--role", "admin")
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert result.stdout == token + "\n"
    assert token.startswith("ryk_")
    assert len(token) == 59
    assert result.stderr == (
        f"Created API key {token[:16]} for user alice of tenant acme (admin, never expires). "
        "It is shown only this once: the database keeps only its hash.\n"
    )
    assert verify(url, token) == KeyIdentity("acme", "alice", "admin", token[:16])


def test_the_database_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("RUNYARD_DATABASE_URL", env_url)
    result = CliRunner().invoke(app, ["keys", "create", "--tenant", "acme", "--user", "bob"])
    assert result.exit_code == 0, result.output
    assert verify(env_url, result.stdout.strip()) is not None


def test_list_shows_every_key_but_never_a_key_itself(url: str) -> None:
    alice = create(url, "--tenant", "acme", "--user", "alice", "--expires", "30d", "--name", "ci")
    bob = create(url, "--tenant", "globex", "--user", "bob", "--name", "[red]not markup")
    result = keys(url, "list")
    assert result.exit_code == 0, result.output
    rows = {line.split()[1]: line for line in result.stdout.splitlines() if "ryk_" in line}
    assert set(rows) == {alice[:16], bob[:16]}
    cells = [cell.strip() for cell in rows[alice[:16]].split("│")]
    assert cells[2:6] == ["acme", "alice", "member", "ci"]
    assert " UTC " in rows[alice[:16]]
    assert "active" in rows[alice[:16]]
    assert "never" in rows[bob[:16]]
    assert "[red]not markup" in rows[bob[:16]]
    for token in (alice, bob):
        assert token[16:28] not in result.output
        assert hash_api_key(token)[:16] not in result.output


def test_list_by_tenant_shows_only_that_tenants_keys(url: str) -> None:
    alice = create(url, "--tenant", "acme", "--user", "alice")
    bob = create(url, "--tenant", "globex", "--user", "bob")
    listed = keys(url, "list", "--tenant", "acme").stdout
    assert alice[:16] in listed
    assert bob[:16] not in listed
    assert keys(url, "list", "--tenant", "initech").stdout == "No API keys of tenant initech.\n"


def test_a_revoked_key_stops_verifying_and_revoking_again_is_harmless(url: str) -> None:
    token = create(url, "--tenant", "acme", "--user", "alice")
    other = create(url, "--tenant", "acme", "--user", "alice")
    first = keys(url, "revoke", token[:16])
    assert first.exit_code == 0, first.output
    assert first.stdout == (
        f"Revoked API key {token[:16]} (user alice of tenant acme): "
        "requests with it are refused from now on.\n"
    )
    assert verify(url, token) is None
    assert verify(url, other) is not None
    again = keys(url, "revoke", token[:16])
    assert again.exit_code == 0, again.output
    assert f"API key {token[:16]} (user alice of tenant acme) was already revoked 2" in again.stdout
    assert "revoked" in keys(url, "list").stdout


def test_revoke_takes_a_whole_leaked_key_too(url: str) -> None:
    token = create(url, "--tenant", "acme", "--user", "alice")
    result = keys(url, "revoke", token)
    assert result.exit_code == 0, result.output
    assert token not in result.output
    assert f"Revoked API key {token[:16]}" in result.stdout
    assert verify(url, token) is None


def test_revoking_an_unknown_id_exits_1_and_says_so(url: str) -> None:
    result = keys(url, "revoke", "ryk_000000000000")
    assert (result.exit_code, result.stderr) == (1, "No API key ryk_000000000000.\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--expires", "3y"], "--expires: '3y' is not a duration: give a whole number and a unit"),
        (["--expires", "0d"], "--expires: '0d' is no time at all"),
        (["--role", "owner"], "--role: 'owner' is not one of admin, member"),
        (["--name", "a\nb"], "--name: must be 1-128 printable characters"),
    ],
)
def test_a_bad_option_is_named_and_nothing_is_stored(
    url: str, args: list[str], message: str
) -> None:
    result = keys(url, "create", "--tenant", "acme", "--user", "alice", *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert keys(url, "list").stdout == "No API keys.\n"


@pytest.mark.parametrize(("option", "value"), [("--tenant", "acme/x"), ("--user", "bob smith")])
def test_tenant_and_user_follow_the_identity_rule(url: str, option: str, value: str) -> None:
    ids = {"--tenant": "acme", "--user": "alice", option: value}
    result = keys(url, "create", *(part for pair in ids.items() for part in pair))
    assert result.exit_code == 1
    assert result.stderr == f"{option}: {value!r} must be 1-128 of A-Z a-z 0-9 . _ @ -\n"


def test_an_in_memory_database_is_refused_for_it_would_keep_nothing() -> None:
    result = keys("memory://", "create", "--tenant", "acme", "--user", "alice")
    assert result.exit_code == 1
    assert "keys kept there would be gone when this command ends" in result.stderr
