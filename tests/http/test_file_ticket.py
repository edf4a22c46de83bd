"""File tickets: with ``RUNYARD_AUTH=keys`` an ``<img>`` or a link, which cannot send the API key,
downloads one of its owner's files with a short-lived URL instead (docs/files.md, "Downloading
without a header"); the key itself is never accepted in a URL."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from http_harness import running_app
from keys_app import client, keys_app

from runyard.ids import now_ms
from runyard.models.demo_script import demo_png
from runyard.service import Owner
from runyard.service.api_keys import (
    TICKET_SECONDS,
    issue_file_ticket,
    issue_stream_ticket,
    verify_file_ticket,
)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


async def upload(app: FastAPI, key: str, data: bytes) -> str:
    async with client(app, key) as c:
        response = await c.post("/v1/files", files={"file": ("cat.png", data)})
    assert response.status_code == 201, response.text
    file_id: str = response.json()["id"]
    return file_id


async def ticket_url(app: FastAPI, key: str, file_id: str) -> str:
    async with client(app, key) as c:
        response = await c.post(f"/v1/files/{file_id}/ticket")
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"url", "expiresAt"}
    assert 0 < body["expiresAt"] - now_ms() <= TICKET_SECONDS * 1000
    url: str = body["url"]
    return url


async def get(app: FastAPI, url: str) -> httpx.Response:
    async with client(app) as c:  # no key: what an <img> sends
        return await c.get(url)


async def test_the_owners_ticket_url_downloads_the_file_without_the_key(url: str) -> None:
    async with keys_app(url) as keys:
        file_id = await upload(keys.app, keys.alice, demo_png())
        link = await ticket_url(keys.app, keys.alice, file_id)
        response = await get(keys.app, link)
        again = await get(keys.app, link)  # the same URL works again within its minute

    assert link.startswith(f"/v1/files/{file_id}?ticket=ryt_")
    assert response.status_code == again.status_code == 200
    assert response.content == demo_png()
    assert response.headers["content-type"] == "image/png"


async def test_another_users_key_gets_no_ticket_for_the_file(url: str) -> None:
    async with keys_app(url) as keys:
        file_id = await upload(keys.app, keys.alice, demo_png())
        async with client(keys.app, keys.bob) as c:
            refused = await c.post(f"/v1/files/{file_id}/ticket")
            unknown = await c.post(f"/v1/files/file_{'0' * 32}/ticket")

    assert refused.status_code == unknown.status_code == 404
    assert refused.json()["error"] == {
        "code": "file_not_found",
        "message": f"no file {file_id!r}",
        "field": "path.file_id",
    }


async def test_a_ticket_for_one_file_does_not_open_another(url: str) -> None:
    async with keys_app(url) as keys:
        first = await upload(keys.app, keys.alice, demo_png())
        second = await upload(keys.app, keys.alice, b"second file")
        link = await ticket_url(keys.app, keys.alice, first)
        ticket = link.split("ticket=")[1]
        other = await get(keys.app, f"/v1/files/{second}?ticket={ticket}")

    assert other.status_code == 401
    assert other.json()["error"]["code"] == "unauthenticated"


@pytest.mark.parametrize(
    "damage", ["tampered", "revoked", "garbled", "api_key_in_url", "stream_ticket"]
)
async def test_a_bad_ticket_is_401(url: str, damage: str) -> None:
    async with keys_app(url) as keys:
        file_id = await upload(keys.app, keys.alice, demo_png())
        ticket = (await ticket_url(keys.app, keys.alice, file_id)).split("ticket=")[1]
        key = await keys.store.get_api_key(keys.alice[:16])
        assert key is not None
        if damage == "tampered":
            ticket = ticket[:-1] + ("A" if ticket[-1] != "A" else "B")
        elif damage == "revoked":
            await keys.store.revoke_api_key(keys.alice[:16], at=now_ms())
        elif damage == "garbled":
            ticket = "ryt_garbled"
        elif damage == "api_key_in_url":
            ticket = keys.alice
        else:  # a stream ticket for a thread named like the file opens no file
            ticket = issue_stream_ticket(key, file_id).token
        response = await get(keys.app, f"/v1/files/{file_id}?ticket={ticket}")

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthenticated"


async def test_an_expired_ticket_is_401(url: str) -> None:
    async with keys_app(url) as keys:
        file_id = await upload(keys.app, keys.alice, demo_png())
        key = await keys.store.get_api_key(keys.alice[:16])
        assert key is not None
        issued = issue_file_ticket(key, file_id, now=now_ms() - TICKET_SECONDS * 1000 - 1)
        last = issued.expires_at - 1
        valid = await verify_file_ticket(keys.store, issued.token, file_id, now=last)
        response = await get(keys.app, f"/v1/files/{file_id}?ticket={issued.token}")

    assert valid is not None
    assert valid.owner == Owner("acme", "alice")
    assert response.status_code == 401


async def test_without_keys_there_is_no_file_ticket_to_get(url: str) -> None:
    async with (
        running_app(url, settings={"auth": "none"}, sse_follow=False) as app,
        client(app) as c,
    ):
        uploaded = await c.post("/v1/files", files={"file": ("cat.png", demo_png())})
        file_id = uploaded.json()["id"]
        minted = await c.post(f"/v1/files/{file_id}/ticket")
        given = await c.get(f"/v1/files/{file_id}", params={"ticket": "ryt_x"})

    assert minted.status_code == 404
    assert given.status_code == 200
