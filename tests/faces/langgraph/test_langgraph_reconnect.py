"""A LangGraph stream whose connection breaks mid-answer: ``langgraph_sdk`` rejoins the run's
stream by itself (the ``Location`` runyard sent, with the last frame's ``id`` as
``Last-Event-ID``), and what it yields is the whole answer, once — nothing missed, nothing twice.
A TCP proxy between the client and the server drops the connection, as a network blip would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from faces.faces_server import serving
from ui.tcp_proxy import TcpProxy

pytestmark = pytest.mark.slow

SLOW = "/delay 30\n" + " ".join(f"word{i}" for i in range(60))


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[TcpProxy]:
    with serving(tmp_path) as base, TcpProxy(int(base.rsplit(":", 1)[1])) as given:
        yield given


async def test_a_broken_stream_is_rejoined_after_its_last_event_id(proxy: TcpProxy) -> None:
    client = get_client(url=f"http://127.0.0.1:{proxy.port}/langgraph", api_key=None)
    thread_id = (await client.threads.create())["thread_id"]
    parts = []
    async for part in client.runs.stream(
        thread_id,
        "assistant",
        input={"messages": [{"role": "user", "content": SLOW}]},
        stream_mode="messages-tuple",
    ):
        parts.append(part)
        if len(parts) == 10:
            proxy.cut()  # mid-answer: the SDK sees its connection drop

    state = await client.threads.get_state(thread_id)
    await client.aclose()
    events = [p.event for p in parts]
    assert proxy.accepted == 2  # the pooled connection that was cut, then the rejoin's
    assert events.count("metadata") == 1
    assert events[-1] == "end"
    assert events.count("end") == 1
    text = "".join(p.data[0]["content"] for p in parts if p.event == "messages")
    assert text == state["values"]["messages"][-1]["content"]
    assert "word59" in text
