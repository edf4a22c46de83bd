"""LangGraph's JavaScript client, ``@langchain/langgraph-sdk`` in Node (``node/langgraph_client.mjs``),
against runyard's ``/langgraph``: the same endpoints as the Python SDK, spelled the JavaScript
way (``streamMode``, ``threads.getState``) — a streamed tool call, an approval interrupt resumed
with ``command.resume``, and the thread's state."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from faces.faces_server import node_script, serving

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("langgraph-node")) as url:
        yield url


def test_the_javascript_sdk_streams_waits_and_resumes(base: str) -> None:
    seen = node_script("langgraph_client.mjs", base)

    assert seen["assistants"] == ["assistant"]
    events = [p["event"] for p in seen["streamed"]]
    assert (events[0], events[-1]) == ("metadata", "end")
    updates = [p["data"] for p in seen["streamed"] if p["event"] == "updates"]
    assert [list(u) for u in updates] == [["model"], ["tools"], ["model"]]
    assert json.loads(updates[1]["tools"]["messages"][0]["content"]) == {"result": 14}
    chunks = [p["data"][0] for p in seen["streamed"] if p["event"] == "messages"]
    text = "".join(c["content"] for c in chunks if c["type"] == "AIMessageChunk")
    assert text == updates[2]["model"]["messages"][0]["content"]
    (interrupt,) = seen["waiting"]["__interrupt__"]
    assert interrupt["value"]["action_requests"][0]["args"] == {"text": "from js"}
    resumed = [list(p["data"]) for p in seen["resumed"] if p["event"] == "updates"]
    assert resumed == [["tools"], ["model"]]
    messages = seen["state"]["values"]["messages"]
    assert [m["type"] for m in messages][-3:] == ["ai", "tool", "ai"]
    assert seen["state"]["next"] == []
