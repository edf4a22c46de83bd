"""The replay cursor: ASCII digits for an integer in 0 … 2^63-1, from ``Last-Event-ID`` or
``?lastEventId``; anything else is 400 ``invalid_cursor`` naming the field, before any stream."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app

from runyard.http.cursor import MAX_CURSOR, digits_at_most
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


BAD_VALUES = ["", "²", "٣", "-3", "+5", "1e3", "0x10", " 5", "5 ", str(MAX_CURSOR + 1), "9" * 5000]


@pytest.mark.parametrize("value", BAD_VALUES)
async def test_a_bad_query_cursor_is_400_naming_it(url: str, value: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        async with asyncio.timeout(20):  # an accepted cursor would stream forever
            response = await client.get("/v1/events/t1", params={"lastEventId": value})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_cursor"
    assert response.json()["error"]["field"] == "lastEventId"


@pytest.mark.parametrize("value", [b"\xb2", b"junk", b"", b"-1", str(MAX_CURSOR + 1).encode()])
async def test_a_bad_last_event_id_header_is_400_naming_it(url: str, value: bytes) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        # A valid query cursor does not rescue a bad header: the header is what a browser sends.
        async with asyncio.timeout(20):
            response = await client.get(
                "/v1/events/t1?lastEventId=1", headers={"Last-Event-ID": value}
            )

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid_cursor",
        "message": "Last-Event-ID must be an integer from 0 to 2^63-1",
        "field": "Last-Event-ID",
    }


async def test_a_bad_query_cursor_is_refused_even_beside_a_good_header(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client, asyncio.timeout(20):
        response = await client.get("/v1/events/t1?lastEventId=x", headers={"Last-Event-ID": "3"})

    assert (response.status_code, response.json()["error"]["field"]) == (400, "lastEventId")


async def test_a_refused_cursor_claims_no_thread(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        async with asyncio.timeout(20):
            await client.get("/v1/events/t1?lastEventId=²")
        listed = (await client.get("/v1/threads")).json()

    assert listed == {"threads": []}


async def test_the_largest_cursor_streams_and_keeps_the_stream_open(url: str) -> None:
    async with running_app(url, sse_ping_seconds=0.05) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, f"/v1/events/t1?lastEventId={MAX_CURSOR}") as stream:
            comments = [await stream.arrived.get() for _ in range(3)]

    assert stream.status == 200
    assert [f.comment for f in comments if f.comment is not None][-1] == "ping"
    assert all(f.data is None for f in comments)


async def test_leading_zeros_are_digits_too(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1?lastEventId=0002") as stream:
            first = await stream.next_event()

    assert first.id == 3


def test_the_cursor_pattern_is_exactly_the_integers_up_to_its_bound() -> None:
    for bound in (0, 7, 10, 99, 100, 205, 1000, 3071):
        pattern = re.compile(digits_at_most(bound))
        width = len(str(bound))
        accepted = {
            text
            for length in range(1, width + 1)
            for text in (f"{n:0{length}d}" for n in range(10**length))
            if pattern.fullmatch(text)
        }
        expected = {
            f"{n:0{length}d}"
            for length in range(1, width + 1)
            for n in range(min(bound + 1, 10**length))
        }
        assert accepted == expected, bound
        assert pattern.fullmatch("0" * (width + 1)) is None
