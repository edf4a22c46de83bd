"""Stream tickets: with ``RUNYARD_AUTH=keys`` a browser's EventSource, which cannot send the API key,
opens a thread's event stream with a short-lived ticket for that thread instead; the key itself
is never accepted in a URL (docs/security.md, "Stream tickets")."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from http_harness import FrameParser, running_app, settled
from keys_app import Keys, client, keys_app

from runyard.ids import now_ms
from runyard.redaction import SecretRedactor
from runyard.service import Owner
from runyard.service.api_keys import (
    TICKET_SECONDS,
    issue_stream_ticket,
    verify_stream_ticket,
)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


async def ticket_for(app: FastAPI, key: str, thread: str) -> str:
    async with client(app, key) as c:
        response = await c.post(f"/v1/threads/{thread}/stream-ticket")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["expiresAt"] - now_ms() <= TICKET_SECONDS * 1000
    ticket: str = body["ticket"]
    return ticket


async def events_with(app: FastAPI, thread: str, ticket: str) -> httpx.Response:
    async with client(app) as c:
        return await c.get(f"/v1/events/{thread}", params={"ticket": ticket})


async def alice_says(keys: Keys, message: str) -> None:
    """Alice's run on her thread t1, to its end."""
    async with client(keys.app, keys.alice) as c:
        await c.post("/v1/chat/t1", json={"message": message})
    await settled(keys.app, "t1", Owner("acme", "alice"))


async def test_a_ticket_opens_its_threads_stream_without_the_key(url: str) -> None:
    async with keys_app(url) as keys:
        await alice_says(keys, "hello")
        ticket = await ticket_for(keys.app, keys.alice, "t1")
        response = await events_with(keys.app, "t1", ticket)

    frames = [f.data for f in FrameParser().feed(response.content) if f.data]
    assert response.status_code == 200
    assert ticket.startswith("ryt_")
    assert [frames[0]["type"], frames[-1]["type"]] == ["run-start", "run-finish"]


async def test_a_ticket_opens_no_other_thread_and_no_other_users_thread(url: str) -> None:
    async with keys_app(url) as keys:
        await alice_says(keys, "alice's secret")
        alices = await ticket_for(keys.app, keys.alice, "t1")
        bobs = await ticket_for(keys.app, keys.bob, "t1")
        other_thread = await events_with(keys.app, "t2", alices)
        bobs_stream = await events_with(keys.app, "t1", bobs)

    assert other_thread.status_code == 401
    assert other_thread.json()["error"]["code"] == "unauthenticated"
    # Bob's ticket opens Bob's own (empty) thread t1, never Alice's.
    assert bobs_stream.status_code == 200
    assert "alice's secret" not in bobs_stream.text
    assert [f.data for f in FrameParser().feed(bobs_stream.content) if f.data] == []


@pytest.mark.parametrize("damage", ["tampered", "revoked", "api_key_in_url", "garbage"])
async def test_a_bad_ticket_is_the_one_401(url: str, damage: str) -> None:
    async with keys_app(url) as keys:
        ticket = await ticket_for(keys.app, keys.alice, "t1")
        if damage == "tampered":
            ticket = ticket[:-1] + ("A" if ticket[-1] != "A" else "B")
        elif damage == "revoked":
            await keys.store.revoke_api_key(keys.alice[:16], at=now_ms())
        elif damage == "api_key_in_url":
            ticket = keys.alice
        else:
            ticket = "ryt_nothing"
        response = await events_with(keys.app, "t1", ticket)

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthenticated"


async def test_a_ticket_expires_after_a_minute(url: str) -> None:
    async with keys_app(url) as keys:
        key = await keys.store.get_api_key(keys.alice[:16])
        assert key is not None
        issued = issue_stream_ticket(key, "t1", now=1_700_000_000_000)
        last = issued.expires_at - 1
        valid = await verify_stream_ticket(keys.store, issued.token, "t1", now=last)
        expired = await verify_stream_ticket(keys.store, issued.token, "t1", now=last + 1)

    assert issued.expires_at == 1_700_000_000_000 + TICKET_SECONDS * 1000
    assert valid is not None
    assert valid.owner == Owner("acme", "alice")
    assert expired is None


async def test_without_keys_there_is_no_ticket_to_get_and_one_given_changes_nothing(
    url: str,
) -> None:
    async with (
        running_app(url, settings={"auth": "none"}, sse_follow=False) as app,
        client(app) as c,
    ):
        minted = await c.post("/v1/threads/t1/stream-ticket")
        given = await c.get("/v1/events/t1", params={"ticket": "ryt_x"})

    assert minted.status_code == 404
    assert given.status_code == 200


async def test_a_ticket_in_a_log_line_is_redacted(url: str) -> None:
    async with keys_app(url) as keys:
        ticket = await ticket_for(keys.app, keys.alice, "t1")

    line = f'"GET /v1/events/t1?ticket={ticket} HTTP/1.1" 200'
    assert ticket not in SecretRedactor().redact(line)
