"""CORS: off by default (no headers at all); with ``RUNYARD_CORS_ORIGINS`` the listed origins may
call the API and open the event stream, preflight included; others get nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app

from sqlite_databases import MigratedSqlite

APP = "https://app.example"
ORIGINS = {"cors_origins": f"{APP}, http://localhost:5173"}


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def cors_headers(headers: dict[str, str] | object) -> dict[str, str]:
    assert hasattr(headers, "items")
    return {k.lower(): v for k, v in headers.items() if k.lower().startswith("access-control-")}


def preflight(method: str, headers: str, origin: str = APP) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers,
    }


async def test_without_origins_there_are_no_cors_headers_at_all(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        plain = await client.get("/v1/threads", headers={"Origin": APP})
        asked = await client.options("/v1/chat/t1", headers=preflight("POST", "content-type"))

    assert plain.status_code == 200
    assert cors_headers(plain.headers) == {}
    assert cors_headers(asked.headers) == {}
    assert asked.status_code == 405


async def test_a_listed_origin_passes_the_preflight_with_identity_and_cursor_headers(
    url: str,
) -> None:
    wanted = "content-type, x-runyard-tenant, x-runyard-user, last-event-id"
    async with running_app(url, settings=ORIGINS) as app, asgi_client(app) as client:
        post = await client.options("/v1/chat/t1", headers=preflight("POST", wanted))
        delete = await client.options("/v1/threads/t1", headers=preflight("DELETE", wanted))

    for response in (post, delete):
        assert response.status_code == 200
        allowed = cors_headers(response.headers)
        assert allowed["access-control-allow-origin"] == APP
        assert {h.strip().lower() for h in allowed["access-control-allow-headers"].split(",")} >= {
            "content-type",
            "x-runyard-tenant",
            "x-runyard-user",
            "last-event-id",
        }
        assert "DELETE" in allowed["access-control-allow-methods"]


async def test_a_listed_origin_calls_the_api_and_opens_the_event_stream(url: str) -> None:
    async with running_app(url, settings=ORIGINS) as app, asgi_client(app) as client:
        posted = await client.post("/v1/chat/t1", json={"message": "hi"}, headers={"Origin": APP})
        refused = await client.get("/v1/threads/nope/status", headers={"Origin": APP})
        async with asgi_sse(app, "/v1/events/t1", {"Origin": APP}) as stream:
            await stream.until("run-finish")

    for headers in (posted.headers, refused.headers, stream.headers):
        assert cors_headers(headers)["access-control-allow-origin"] == APP
    assert refused.status_code == 404
    assert stream.headers["content-type"] == "text/event-stream"


async def test_an_unlisted_origin_gets_no_cors_headers(url: str) -> None:
    evil = "https://evil.example"
    async with running_app(url, settings=ORIGINS) as app, asgi_client(app) as client:
        asked = await client.options(
            "/v1/chat/t1", headers=preflight("POST", "content-type", origin=evil)
        )
        plain = await client.get("/v1/threads", headers={"Origin": evil})

    # Without Access-Control-Allow-Origin a browser hands the page nothing.
    assert asked.status_code == 400
    assert "access-control-allow-origin" not in cors_headers(asked.headers)
    assert "access-control-allow-origin" not in cors_headers(plain.headers)


async def test_any_origin_never_gets_credentials(url: str) -> None:
    async with running_app(url, settings={"cors_origins": "*"}) as app, asgi_client(app) as client:
        plain = await client.get("/v1/threads", headers={"Origin": APP})

    assert cors_headers(plain.headers) == {
        "access-control-allow-origin": "*",
        "access-control-expose-headers": "Content-Location, Location",
    }
