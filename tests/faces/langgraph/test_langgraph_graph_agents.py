"""LangGraph agents of the catalog through the LangGraph face, with ``langgraph_sdk``: a
``runtime: langchain`` agent (LangChain's ``create_agent`` over runyard's model) streams and
waits for approval as a runyard agent does, a ``graph:`` agent's own ``interrupt()`` reaches
the client as the graph raised it, answered with ``command.resume``, and LangChain's
human-in-the-loop middleware asking about a turn's calls together takes a decision per call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from faces.faces_server import serving

CATALOG = """\
kind: agent
id: lc
runtime: langchain
model: runyard:demo
instructions: You are a LangChain agent.
tools: [calculator, save_note]
---
kind: agent
id: asker
graph: ./ask.py:graph
---
kind: agent
id: reviewed
graph: ./reviewed.py:graph
"""
ASK = """\
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt


def ask(state: MessagesState) -> dict:
    name = interrupt("What is your name?")
    return {"messages": [AIMessage(content=f"Hello {name}!")]}


graph = StateGraph(MessagesState).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END)
"""
REVIEWED = """\
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


@tool(description="Save a note.")
def save(text: str) -> str:
    return f"saved {text}"


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


calls = [
    {"name": "save", "args": {"text": "milk"}, "id": "c1"},
    {"name": "save", "args": {"text": "eggs"}, "id": "c2"},
]
graph = create_agent(
    Model(responses=[AIMessage(content="", tool_calls=calls), AIMessage(content="done")]),
    tools=[save],
    middleware=[HumanInTheLoopMiddleware(interrupt_on={"save": True})],
)
"""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncLangGraphClient]:
    tmp = tmp_path_factory.mktemp("langgraph-agents")
    (tmp / "agents").mkdir()
    (tmp / "agents" / "agents.yaml").write_text(CATALOG)
    (tmp / "agents" / "ask.py").write_text(ASK)
    (tmp / "agents" / "reviewed.py").write_text(REVIEWED)
    with serving(tmp, catalog_dir=str(tmp / "agents")) as url:
        given = get_sync_client(url=f"{url}/langgraph", api_key=None)
        yield given
        given.close()


def said(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def test_a_langchain_agent_streams_its_tool_turns(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread_id,
            "lc",
            input=said('/tool calculator {"expression": "2+3"}'),
            stream_mode=["updates", "messages-tuple"],
        )
    )

    assert (parts[0].event, parts[-1].event) == ("metadata", "end")
    updates = [p.data for p in parts if p.event == "updates"]
    assert [list(u) for u in updates] == [["model"], ["tools"], ["model"]]
    assert json.loads(updates[1]["tools"]["messages"][0]["content"]) == {"result": 5}
    chunks = [p.data[0] for p in parts if p.event == "messages"]
    assert (
        "".join(c["content"] for c in chunks if c["type"] == "AIMessageChunk")
        == (updates[2]["model"]["messages"][0]["content"])
    )


def test_a_langchain_agents_approval_is_resumed_with_a_decision(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    waiting = client.runs.wait(thread_id, "lc", input=said('/tool save_note {"text": "milk"}'))
    (asked,) = waiting["__interrupt__"]

    answered = client.runs.wait(
        thread_id, "lc", command={"resume": {"decisions": [{"type": "approve"}]}}
    )

    assert asked["value"]["action_requests"][0]["name"] == "save_note"
    assert [m["type"] for m in answered["messages"]][-2:] == ["tool", "ai"]
    assert answered["messages"][-2]["status"] == "success"


def test_a_graphs_own_interrupt_reaches_the_client_and_a_text_resumes_it(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    waiting = client.runs.wait(thread_id, "asker", input=said("hi"))
    state = client.threads.get_state(thread_id)

    answered = client.runs.wait(thread_id, "asker", command={"resume": "Ann"})

    (asked,) = waiting["__interrupt__"]
    assert asked["value"] == "What is your name?"
    assert state["interrupts"] == [asked]
    assert answered["messages"][-1]["content"] == "Hello Ann!"


def test_langchains_human_in_the_loop_batch_takes_a_decision_per_call(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    waiting = client.runs.wait(thread_id, "reviewed", input=said("save both"))

    (asked,) = waiting["__interrupt__"]
    requests = asked["value"]["action_requests"]
    assert [r["args"] for r in requests] == [{"text": "milk"}, {"text": "eggs"}]
    assert client.threads.get_state(thread_id)["next"] == ["tools"]
    decisions = [{"type": "approve"}, {"type": "reject", "message": "no eggs"}]
    answered = client.runs.wait(thread_id, "reviewed", command={"resume": {"decisions": decisions}})

    tools = {m["tool_call_id"]: m for m in answered["messages"] if m["type"] == "tool"}
    assert tools["c1"]["content"] == "saved milk"
    assert "no eggs" in tools["c2"]["content"]
    assert answered["messages"][-1]["content"] == "done"
