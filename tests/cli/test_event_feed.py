"""The event feed: wire events from SSE, reconnecting with Last-Event-ID, never one twice."""

from __future__ import annotations

import httpx
import pytest
from scripted_server import ScriptedServer, reply_events, serving

from runyard.cli.chat.client import ChatClient, Connection
from runyard.cli.chat.feed import EventFeed, FeedError, ReceivedEvent, RetryPolicy
from runyard.protocol import TextDeltaEvent

FAST = RetryPolicy(first_delay=0.01, max_delay=0.05, attempts=3)
WORDS = ["You", " said:", " hello", " there"]


async def _until_finish(feed: EventFeed) -> list[ReceivedEvent]:
    received: list[ReceivedEvent] = []
    events = feed.events()
    async for item in events:
        received.append(item)
        if item.event.type == "run-finish":
            break
    await events.aclose()
    return received


async def _follow(script: ScriptedServer, retries: list[str]) -> list[ReceivedEvent]:
    async with ChatClient(Connection(url=script.url)) as client:
        feed = client.events(
            "t1", after=None, retry=FAST, on_retry=lambda _n, _d, why: retries.append(why)
        )
        return await _until_finish(feed)


async def test_events_arrive_in_order_with_their_ids() -> None:
    with serving(ScriptedServer(reply_events(WORDS))) as script:
        received = await _follow(script, [])
    assert [item.id for item in received] == list(range(1, 8))
    assert [item.event.type for item in received] == [
        "run-start",
        "reasoning-delta",
        *["text-delta"] * 4,
        "run-finish",
    ]
    assert script.cursors == [None]


async def test_a_dropped_stream_resumes_from_the_last_seen_id() -> None:
    retries: list[str] = []
    with serving(ScriptedServer(reply_events(WORDS), drop_after=3)) as script:
        received = await _follow(script, retries)
    assert script.cursors == [None, "3"]
    assert len(retries) == 1
    assert [item.id for item in received] == list(range(1, 8))
    text = "".join(i.event.payload.text for i in received if isinstance(i.event, TextDeltaEvent))
    assert text == "You said: hello there"


async def test_frames_replayed_after_a_reconnect_are_not_delivered_twice() -> None:
    script = ScriptedServer(reply_events(WORDS), drop_after=4, replay_overlap=True)
    with serving(script):
        received = await _follow(script, [])
    assert script.cursors == [None, "4"]
    assert [item.id for item in received] == list(range(1, 8))


async def test_the_cursor_it_starts_from_is_sent_on_the_first_connection() -> None:
    with serving(ScriptedServer(reply_events(WORDS))) as script:
        async with ChatClient(Connection(url=script.url)) as client:
            received = await _until_finish(client.events("t1", after=5, retry=FAST))
    assert script.cursors == ["5"]
    assert [item.id for item in received] == [6, 7]


async def test_an_unreachable_server_gives_up_after_the_retries() -> None:
    retries: list[str] = []
    async with httpx.AsyncClient(base_url="http://127.0.0.1:9") as http:
        feed = EventFeed(http, "t1", retry=FAST, on_retry=lambda _n, _d, why: retries.append(why))
        with pytest.raises(FeedError, match="gave up after 3 retries"):
            await _until_finish(feed)
    assert len(retries) == 3
    assert feed.connections == 4
