"""SSE replay: cursors (Last-Event-ID beats ?lastEventId), replay while a run streams, the
messages + nextEventId hand-off, keep-alive pings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from http_harness import Frame, asgi_client, asgi_sse, running_app, settled

from sqlite_databases import MigratedSqlite

SLOW = "/delay 15\none two three four five six seven eight nine ten eleven twelve"


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_last_event_id_header_wins_over_the_query_cursor(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello there"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            everything = await stream.until("run-finish")
        path = "/v1/events/t1?lastEventId=1"
        async with asgi_sse(app, path, {"Last-Event-ID": "3"}) as stream:
            header_first = await stream.next_event()
        async with asgi_sse(app, path) as stream:
            query_first = await stream.next_event()

    assert len(everything) > 4
    assert (header_first.id, query_first.id) == (4, 2)


async def test_replay_from_a_cursor_while_a_run_streams_has_no_gap_or_duplicate(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": SLOW})
        async with asgi_sse(app, "/v1/events/t1") as first:
            early = [await first.next_event() for _ in range(4)]
            async with asgi_sse(app, f"/v1/events/t1?lastEventId={early[-1].id}") as second:
                rest = await second.until("run-finish")
            tail = await first.until("run-finish")

    whole = early + tail
    assert [f.id for f in whole] == list(range(1, len(whole) + 1))
    assert [f.id for f in rest] == [f.id for f in whole[4:]]
    assert [f.data for f in rest] == [f.data for f in whole[4:]]


async def test_history_then_stream_from_next_event_id_sees_everything_exactly_once(
    url: str,
) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": SLOW})
        async with asgi_sse(app, "/v1/events/t1") as watcher:
            for _ in range(5):
                await watcher.next_event()
            history = (await client.get("/v1/threads/t1/messages")).json()
            cursor = history["nextEventId"] - 1
            async with asgi_sse(app, f"/v1/events/t1?lastEventId={cursor}") as live:
                later = await live.until("run-finish")
            whole = await watcher.until("run-finish")

    # The user's message is stored as the run starts; the answer streaming so far comes after it.
    user, assistant = history["messages"][-2:]
    assert (user["role"], user["content"]) == ("user", SLOW)
    assert assistant["isStreaming"] is True
    assert later[0].id == history["nextEventId"]
    streamed = "".join(f.data["payload"]["text"] for f in later if f.data["type"] == "text-delta")
    assert (
        assistant["content"] + streamed
        == 'You said: "one two three four five six seven eight nine ten eleven twelve"'
    )
    assert len(whole) + 5 == later[-1].id


async def test_a_stream_starts_with_retry_then_pings_while_idle(url: str) -> None:
    async with (
        running_app(url, sse_ping_seconds=0.02) as app,
        asgi_sse(app, "/v1/events/quiet") as stream,
    ):
        frames = [await stream.arrived.get() for _ in range(3)]

    assert frames[0] == Frame(retry=1000)
    assert [f.comment for f in frames[1:]] == ["ping", "ping"]


async def test_messages_show_the_finished_agent_tree(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post(
            "/v1/chat/t1", json={"message": '/tool calculator {"expression": "2+3*4"}'}
        )
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

    assistant: dict[str, Any] = history["messages"][-1]
    tree = assistant["agentTree"]
    assert assistant["isStreaming"] is False
    assert history["nextEventId"] == frames[-1].id + 1
    assert tree["status"] == "completed"
    assert [(c["toolName"], c["result"], c["isLoading"]) for c in tree["toolCalls"]] == [
        ("calculator", {"result": 14}, False)
    ]
    assert assistant["content"] == 'calculator returned {"result": 14}.'
