"""What a graph's stream becomes: its messages' content blocks, its nodes' own stream writes, its
subgraphs as child agents and its models' usage reach runyard as chunks, and through the
service's ``ChunkMapper`` as wire events — nothing a graph says is dropped on the way.

Real LangGraph and LangChain throughout; the graphs' models are LangChain's own fakes and
``ChatOpenAI`` against a local server speaking OpenAI's wire format.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool as langchain_tool
from langchain_openai import ChatOpenAI
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Send, interrupt

from local_openai_server import local_openai_server
from runyard.agent.graph_agent import GraphAgent
from runyard.messages import ImagePart
from runyard.protocol import AgentTreeBuilder, RunStartEvent, RunStartPayload, WireEvent
from runyard.runtime import (
    FinishChunk,
    InMemoryCheckpointStore,
    StreamChunk,
    SubAgentEndChunk,
    TextDeltaChunk,
    ToolExecutionStartChunk,
    ToolResultChunk,
)
from runyard.runtime.graph import CustomGraph, RunyardChatModel
from runyard.service.event_log.chunks import ChunkMapper
from runyard.testing import TurnUsage, call, scripted_model, text
from runyard.tools import ToolContext, tool

PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQK"
MAIN = "main"


def _graph(*nodes: tuple[str, Any]) -> Any:
    """A graph of ``nodes`` one after another, on the messages state."""
    builder = StateGraph(MessagesState)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile()


async def _run(graph: Any, **options: Any) -> tuple[list[StreamChunk], list[WireEvent]]:
    """The chunks of a run of ``graph`` on "hi", and the wire events the service maps them to."""
    agent = GraphAgent("g", scripted_model([]), CustomGraph(graph, "g"), **options)
    return await _drain(await agent.stream("hi"))


async def _drain(stream: Any) -> tuple[list[StreamChunk], list[WireEvent]]:
    mapper = ChunkMapper("run", MAIN)
    chunks = [c async for c in stream]
    return chunks, [e for c in chunks for e in mapper.map(c)]


def _seen(events: list[WireEvent]) -> list[tuple[str, str, Any]]:
    """(type, agent, what it says) of each event, deltas joined."""
    seen: list[tuple[str, str, Any]] = []
    for event in events:
        said = event.payload.model_dump(mode="json", by_alias=True, exclude_none=True)
        if event.type == "text-delta" and seen and seen[-1][:2] == ("text", event.agent_id):
            seen[-1] = ("text", event.agent_id, seen[-1][2] + said["text"])
        elif event.type == "text-delta":
            seen.append(("text", event.agent_id, said["text"]))
        else:
            seen.append((event.type, event.agent_id, said))
    return seen


def _tree(events: list[WireEvent]) -> Any:
    builder = AgentTreeBuilder()
    builder.apply(
        RunStartEvent(run_id="run", agent_id=MAIN, payload=RunStartPayload(message_id="m"))
    )
    for event in events:
        builder.apply(event)
    return builder.tree()


async def test_a_nodes_content_blocks_arrive_as_content_events_and_its_text_as_a_delta() -> None:
    cited = {
        "type": "text",
        "text": "See the chart.",
        "annotations": [{"type": "citation", "url": "https://example.com/a", "title": "A"}],
    }

    def answer(state: MessagesState) -> dict[str, Any]:
        content: list[str | dict[str, Any]] = [
            {"type": "reasoning", "reasoning": "A chart helps."},
            cited,
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "file", "base64": PDF, "mime_type": "application/pdf", "id": "f1"},
            {"type": "non_standard", "value": {"rows": 2}},
        ]
        return {"messages": [AIMessage(content=content, id="a1")]}

    _, events = await _run(_graph(("answer", answer)))

    assert _seen(events) == [
        ("reasoning-delta", MAIN, {"text": "A chart helps."}),
        ("text", MAIN, "See the chart."),
        (
            "content",
            MAIN,
            {
                "blocks": [
                    {"type": "citation", "url": "https://example.com/a", "title": "A"},
                    {"type": "image", "mime_type": "image/png", "base64": PNG},
                    {
                        "type": "file",
                        "mime_type": "application/pdf",
                        "base64": PDF,
                        "extras": {"id": "f1"},
                    },
                    {"type": "json", "data": {"rows": 2}},
                ],
                "messageId": "a1",
            },
        ),
    ]


async def test_a_tool_message_with_an_image_and_a_file_gives_its_calls_content() -> None:
    def drew(state: MessagesState) -> dict[str, Any]:
        asked = AIMessage("", tool_calls=[{"id": "c1", "name": "draw", "args": {}}], id="a1")
        content: list[str | dict[str, Any]] = [
            {"type": "text", "text": "Drawn."},
            {"type": "image", "url": "https://example.com/p.png", "id": "img-1"},
            {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
        ]
        answered = ToolMessage(content=content, tool_call_id="c1", name="draw", id="t1")
        return {"messages": [asked, answered]}

    chunks, events = await _run(_graph(("drew", drew)))

    (result,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert result.output[0] == "Drawn."
    assert isinstance(result.output[1], ImagePart)
    assert _seen(events)[1:] == [
        (
            "content",
            MAIN,
            {
                "blocks": [
                    {
                        "type": "image",
                        "url": "https://example.com/p.png",
                        "extras": {"id": "img-1"},
                    },
                    {"type": "file", "mime_type": "application/pdf", "base64": PDF},
                ],
                "toolCallId": "c1",
            },
        ),
        (
            "tool-result",
            MAIN,
            {
                "toolCallId": "c1",
                "result": [
                    "Drawn.",
                    {
                        "type": "image",
                        "url": "https://example.com/p.png",
                        "extras": {"id": "img-1"},
                    },
                    {"type": "file", "mime_type": "application/pdf", "base64": PDF},
                ],
            },
        ),
    ]


async def test_a_langchain_tools_artifact_stays_out_and_its_content_blocks_come_through() -> None:
    @langchain_tool(response_format="content_and_artifact")
    def shoot(subject: str) -> tuple[list[str | dict[str, Any]], dict[str, Any]]:
        """Take a picture."""
        picture = {"type": "image", "base64": PNG, "mime_type": "image/png"}
        return [{"type": "text", "text": f"A {subject}."}, picture], {"raw": "kept from the model"}

    def asks(state: MessagesState) -> dict[str, Any]:
        called = {"id": "c1", "name": "shoot", "args": {"subject": "cat"}}
        return {"messages": [AIMessage("", tool_calls=[called])]}

    chunks, events = await _run(_graph(("asks", asks), ("tools", ToolNode([shoot]))))

    (result,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert result.output == ["A cat.", ImagePart(mime_type="image/png", base64=PNG)]
    image = {"type": "image", "mime_type": "image/png", "base64": PNG}
    assert _seen(events)[1:] == [
        ("content", MAIN, {"blocks": [image], "toolCallId": "c1"}),
        ("tool-result", MAIN, {"toolCallId": "c1", "result": ["A cat.", image]}),
    ]


async def test_stream_writes_of_a_node_and_a_tool_are_status_lines_or_json_content() -> None:
    @langchain_tool
    def look(query: str) -> str:
        """Look something up."""
        get_stream_writer()(f"Looking up {query}…")
        return "found"

    def node(state: MessagesState) -> dict[str, Any]:
        write = get_stream_writer()
        write("Planning…")
        write({"step": 1, "of": 2})
        return {}

    def asks(state: MessagesState) -> dict[str, Any]:
        called = {"id": "c1", "name": "look", "args": {"query": "x"}}
        return {"messages": [AIMessage("", tool_calls=[called])]}

    graph = _graph(("plan", node), ("asks", asks), ("tools", ToolNode([look])))

    _, events = await _run(graph)
    said = [(type_, what) for type_, agent, what in _seen(events) if agent == MAIN]

    assert said[:2] == [
        ("status", {"message": "Planning…"}),
        ("content", {"blocks": [{"type": "json", "data": {"step": 1, "of": 2}}]}),
    ]
    assert said[2:] == [
        ("tool-call", {"toolCallId": "c1", "toolName": "look", "args": {"query": "x"}}),
        ("status", {"message": "Looking up x…"}),
        ("tool-result", {"toolCallId": "c1", "result": "found"}),
    ]


async def test_a_subgraph_is_a_child_agent_and_the_answer_it_hands_back_is_its_parents() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("Paris is the capital.", id="s1")]))

    def research(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()("Reading…")
        return {"messages": [model.invoke(state["messages"])]}

    researcher = _graph(("research", research))

    def intro(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("Let me ask.", id="i1")]}

    _, events = await _run(_graph(("intro", intro), ("researcher", researcher)))
    seen = _seen(events)

    (child,) = {agent for _, agent, _ in seen if agent != MAIN}
    assert child.startswith("researcher:")
    assert seen == [
        ("text", MAIN, "Let me ask."),
        (
            "agent-spawned",
            child,
            {"parentId": MAIN, "role": "researcher", "tools": [], "kind": "subgraph"},
        ),
        ("status", child, {"message": "Reading…"}),
        ("text", child, "Paris is the capital."),
        ("agent-completed", child, {"role": "researcher", "result": "Paris is the capital."}),
        ("text", MAIN, "Paris is the capital."),
    ]
    tree = _tree(events)
    (node,) = tree.children
    assert (node.agent_id, node.status, node.result) == (
        child,
        "completed",
        "Paris is the capital.",
    )
    assert tree.text_content == "Let me ask.Paris is the capital."


async def test_subgraphs_sent_in_parallel_each_end_when_their_own_task_does() -> None:
    quick_ended = asyncio.Event()

    async def work(state: MessagesState) -> dict[str, Any]:
        topic = state["messages"][-1].text
        get_stream_writer()(f"started {topic}")
        if topic == "slow":  # still working when the quick one has ended
            await quick_ended.wait()
        return {"messages": [AIMessage(f"done {topic}")]}

    def fan_out(state: MessagesState) -> list[Send]:
        return [Send("worker", {"messages": [HumanMessage(t)]}) for t in ("slow", "quick")]

    builder = StateGraph(MessagesState)
    builder.add_node("worker", _graph(("work", work)))
    builder.add_conditional_edges(START, fan_out)
    builder.add_edge("worker", END)
    agent = GraphAgent("g", scripted_model([]), CustomGraph(builder.compile(), "g"))

    mapper = ChunkMapper("run", MAIN)
    events: list[WireEvent] = []
    async for chunk in await agent.stream("hi"):
        events.extend(mapper.map(chunk))
        if isinstance(chunk, SubAgentEndChunk):
            quick_ended.set()

    by_agent: dict[str, list[str]] = {}
    for type_, agent_id, what in _seen(events):
        if agent_id != MAIN:
            by_agent.setdefault(agent_id, []).append(what if type_ == "text" else type_)
    assert sorted(by_agent.values()) == [
        ["agent-spawned", "status", "done quick", "agent-completed"],
        ["agent-spawned", "status", "done slow", "agent-completed"],
    ]


async def test_a_subgraphs_tool_calls_and_questions_stay_under_its_agent_across_a_resume() -> None:
    def ask(state: MessagesState) -> dict[str, Any]:
        colour = interrupt("Which colour?")
        return {"messages": [AIMessage(f"You chose {colour}.")]}

    def look(state: MessagesState) -> dict[str, Any]:
        asked = AIMessage("", tool_calls=[{"id": "c1", "name": "look", "args": {}}], id="a1")
        return {"messages": [asked, ToolMessage("seen", tool_call_id="c1", name="look", id="t1")]}

    graph = _graph(("inner", _graph(("look", look), ("ask", ask))))
    checkpoints = InMemoryCheckpointStore()
    agent = GraphAgent(
        "g", scripted_model([]), CustomGraph(graph, "g"), checkpoint_store=checkpoints
    )
    stream = await agent.stream("hi")
    _, first = await _drain(stream)
    (question,) = (await stream.result()).pending_suspend

    resumed = await agent.resume(
        "stream", {"value": "teal"}, run_id=question.run_id, tool_call_id=question.tool_call_id
    )
    _, second = await _drain(resumed)

    (child,) = {e.agent_id for e in first if e.agent_id != MAIN}
    assert [(t, a) for t, a, _ in _seen(first)] == [
        ("agent-spawned", child),
        ("tool-call", child),
        ("tool-result", child),
    ]
    assert [(t, a, w) for t, a, w in _seen(second) if t != "agent-spawned"] == [
        ("text", child, "You chose teal."),
        ("agent-completed", child, {"role": "inner", "result": "You chose teal."}),
        ("text", MAIN, "You chose teal."),
    ]
    (node,) = _tree(first + second).children  # the resumed subgraph is the same child
    assert node.status == "completed"


async def test_a_runyard_tool_in_a_subgraph_runs_and_reports_under_its_agent() -> None:
    @tool
    async def look(query: str, ctx: ToolContext) -> str:
        """Look something up."""
        ctx.progress(f"Looking up {query}")
        return "found"

    model = scripted_model([call("look", {"query": "x"}, id="c1"), text("Seen.")])

    def factory(tools: list[Any]) -> Any:
        return _graph(("helper", create_agent(RunyardChatModel(model=model), tools)))

    agent = GraphAgent("g", model, CustomGraph(factory, "g"), tools=[look])
    chunks, events = await _drain(await agent.stream("hi"))

    (child,) = {e.agent_id for e in events if e.agent_id != MAIN}
    assert [c for c in chunks if isinstance(c, ToolExecutionStartChunk)] == []  # all wrapped
    assert [(t, a) for t, a, _ in _seen(events) if t != "text"] == [
        ("agent-spawned", child),
        ("tool-call", child),
        ("status", child),
        ("tool-result", child),
        ("agent-completed", child),
    ]
    assert ("text", MAIN, "Seen.") in _seen(events)


async def test_a_graphs_usage_counts_runyards_cost_and_a_foreign_models_tokens() -> None:
    def priced(state: MessagesState) -> dict[str, Any]:
        counted = {"input_tokens": 5, "output_tokens": 2, "requests": 1, "cost": 0.25}
        metadata = {"runyard_usage": {**counted, "models": ["openai:gpt-x"]}}
        return {"messages": [AIMessage("a", response_metadata=metadata)]}

    foreign = FakeMessagesListChatModel(
        responses=[
            AIMessage(
                "b",
                usage_metadata={"input_tokens": 10, "output_tokens": 3, "total_tokens": 13},
                response_metadata={"model_name": "fake-1"},
            )
        ]
    )

    def unpriced(state: MessagesState) -> dict[str, Any]:
        return {"messages": [foreign.invoke(state["messages"])]}

    def plain(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("c")]}  # no model wrote it: no request

    chunks, _ = await _run(_graph(("priced", priced), ("unpriced", unpriced), ("plain", plain)))

    (finish,) = [c for c in chunks if isinstance(c, FinishChunk)]
    usage = finish.usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (15, 5, 2)
    assert usage.cost == 0.25
    assert set(usage.models) == {"openai:gpt-x", "fake-1"}


async def test_a_runyard_chat_model_in_a_custom_graph_counts_its_usage() -> None:
    model = scripted_model([text("Done.", usage=TurnUsage(input_tokens=5, output_tokens=2))])
    chat = RunyardChatModel(model=model)

    async def ask(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await chat.ainvoke(state["messages"])]}

    chunks, events = await _run(_graph(("ask", ask)))

    assert _seen(events) == [("text", MAIN, "Done.")]
    (finish,) = [c for c in chunks if isinstance(c, FinishChunk)]
    assert (finish.usage.input_tokens, finish.usage.output_tokens) == (5, 2)
    assert finish.usage.requests == 1
    assert finish.usage.models == ("function:scripted",)


async def test_a_foreign_chat_model_in_a_graph_streams_deltas() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("one two three")]))

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    chunks, events = await _run(_graph(("answer", answer)))

    deltas = [c.delta for c in chunks if isinstance(c, TextDeltaChunk)]
    assert len(deltas) > 1  # streamed token by token, not taken whole afterwards
    assert "".join(deltas) == "one two three"
    assert _seen(events) == [("text", MAIN, "one two three")]


async def test_chat_openai_in_a_graph_streams_its_deltas_and_counts_its_usage() -> None:
    async with local_openai_server() as server:
        model = ChatOpenAI(
            model="local", base_url=server.base_url, api_key="test", stream_usage=True
        )

        async def answer(state: MessagesState) -> dict[str, Any]:
            messages: list[BaseMessage] = state["messages"]
            return {"messages": [await model.ainvoke(messages)]}

        chunks, events = await _run(_graph(("answer", answer)))

    assert [c.delta for c in chunks if isinstance(c, TextDeltaChunk)] == ["Let me ", "check."]
    assert [t for t, _, _ in _seen(events)] == ["text", "tool-call"]
    (finish,) = [c for c in chunks if isinstance(c, FinishChunk)]
    assert (finish.usage.input_tokens, finish.usage.output_tokens) == (12, 7)
    assert finish.usage.requests == 1
    assert finish.usage.models == ("local",)
