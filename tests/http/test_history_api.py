"""``GET /v1/threads/{id}/messages`` pages by run: ``nextCursor`` leads to older runs until none
remain, every page carries the same ``nextEventId``, and a malformed cursor is a 422 naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from http_harness import asgi_client, running_app, settled

from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_pages_of_runs_follow_next_cursor_back_to_the_first_run(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        run_ids = []
        for i in range(3):
            response = await client.post("/v1/chat/t1", json={"message": f"message {i}"})
            run_ids.append(response.json()["runId"])
            await settled(app, "t1")
        whole = (await client.get("/v1/threads/t1/messages")).json()
        pages = [(await client.get("/v1/threads/t1/messages?limit=2")).json()]
        while "nextCursor" in pages[-1]:
            cursor = pages[-1]["nextCursor"]
            got = await client.get(f"/v1/threads/t1/messages?limit=2&cursor={cursor}")
            pages.append(got.json())
        bad = await client.get("/v1/threads/t1/messages?cursor=abc")

    assert [[m["runId"] for m in p["messages"]] for p in pages] == [[r, r] for r in run_ids[::-1]]
    assert [m for p in pages[::-1] for m in p["messages"]] == whole["messages"]
    assert {p["nextEventId"] for p in pages} == {whole["nextEventId"]}
    assert bad.status_code == 422
    assert bad.json()["error"]["fields"][0]["field"] == "query.cursor"
