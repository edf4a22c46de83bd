"""A LangGraph SDK client that only knows a server's URL and an assistant id: the same script
runs against ``langgraph dev`` and against runyard's ``/langgraph`` (docs/langgraph.md).

``python lg_client_script.py URL ASSISTANT_ID`` prints one JSON object naming each check it
passed, and exits non-zero at the first that fails. It uses nothing but ``langgraph_sdk`` and
what any chat graph with ``messages`` state does: no runyard extension.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from langgraph_sdk import get_sync_client
from langgraph_sdk.errors import NotFoundError


def _texts(values: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(m["type"], m["content"]) for m in values["messages"]]


def main(url: str, assistant_id: str) -> dict[str, Any]:
    client = get_sync_client(url=url, api_key=None)
    passed: list[str] = []

    found = client.assistants.search(limit=100)
    assert any(a["graph_id"] == assistant_id for a in found), found
    assert client.assistants.get_graph(assistant_id)["nodes"]
    passed.append("assistants")

    thread = client.threads.create(metadata={"suite": "lg-script"})
    thread_id = thread["thread_id"]
    assert thread["status"] == "idle"
    passed.append("threads.create")

    parts = list(
        client.runs.stream(
            thread_id,
            assistant_id,
            input={"messages": [{"role": "user", "content": "hello"}]},
            stream_mode=["values", "updates", "messages-tuple"],
        )
    )
    # LangGraph Server 0.16 closes the stream after the last part; runyard sends `end` then.
    events = [p.event for p in parts if p.event != "end"]
    assert events[0] == "metadata", events
    assert [p.event for p in parts].count("end") in (0, 1), parts
    assert {"values", "updates", "messages"} <= set(events), events
    streamed = next(p.data for p in reversed(parts) if p.event == "values")
    assert [kind for kind, _ in _texts(streamed)] == ["human", "ai"], streamed
    chunks = [p.data[0] for p in parts if p.event == "messages"]
    text = "".join(c["content"] for c in chunks if c["type"] == "AIMessageChunk")
    assert text == streamed["messages"][-1]["content"], (text, streamed)
    passed.append("runs.stream")

    waited = client.runs.wait(
        thread_id, assistant_id, input={"messages": [{"role": "user", "content": "again"}]}
    )
    assert [kind for kind, _ in _texts(waited)] == ["human", "ai", "human", "ai"], waited
    passed.append("runs.wait")

    state = client.threads.get_state(thread_id)
    assert _texts(state["values"]) == _texts(waited), state
    assert state["next"] == []
    passed.append("threads.get_state")

    run = client.runs.create(
        thread_id, assistant_id, input={"messages": [{"role": "user", "content": "third"}]}
    )
    joined = client.runs.join(thread_id, run["run_id"])
    assert len(joined["messages"]) == 6, joined
    assert client.runs.get(thread_id, run["run_id"])["status"] == "success"
    passed.append("runs.create+join")

    searched = client.threads.search(metadata={"suite": "lg-script"}, limit=100)
    assert thread_id in [t["thread_id"] for t in searched], searched
    passed.append("threads.search")

    client.threads.delete(thread_id)
    try:
        client.threads.get(thread_id)
    except NotFoundError:
        passed.append("threads.delete")
    else:
        raise AssertionError("a deleted thread is still found")
    return {"ok": True, "passed": passed}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
