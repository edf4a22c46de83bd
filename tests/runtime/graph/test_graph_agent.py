"""LangGraph agents on runyard's runtime: a ``create_agent`` graph and graphs of one's own, run
by ``GraphAgent`` with real LangGraph and LangChain (no mocks of them); the model is runyard's
scripted model behind ``RunyardChatModel``.

A run's process "dies" by cancelling its task outright (nothing more is written, as when a
process is killed); another agent object — another process — carries it on from its journal.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from typing_extensions import TypedDict

from counting_tool import Counter
from runyard.agent.graph_agent import GraphAgent
from runyard.runtime import (
    INTERRUPTED_TOOL_ERROR,
    InMemoryCheckpointStore,
    InMemoryRunJournal,
    RunStatus,
    TextDeltaChunk,
    ToolCallSuspendedChunk,
    ToolExecutionStartChunk,
    ToolResultChunk,
)
from runyard.runtime.graph import INTERRUPT_TOOL, AgentGraph, CustomGraph, RunyardChatModel
from runyard.testing import ScriptedModel, ToolCall, Turn, call, scripted_model, text
from runyard.tools import Tool, ToolContext, tool


def _langchain_agent(model: ScriptedModel, tools: list[Tool], **options: Any) -> GraphAgent:
    return GraphAgent(
        "lc", model, AgentGraph(RunyardChatModel(model=model)), tools=tools, **options
    )


def _tool_results(model: ScriptedModel) -> list[Any]:
    last: list[ModelMessage] = model.requests[-1]
    return [
        p.content for m in last for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)
    ]


async def test_a_create_agent_run_streams_calls_runyard_tools_and_counts_usage() -> None:
    seen: list[str | None] = []

    @tool
    def add(a: int, b: int, ctx: ToolContext) -> int:
        """Add two numbers."""
        seen.append(ctx.run_id)
        return a + b

    model = scripted_model([call("add", {"a": 2, "b": 3}), text("It is 5.")])
    agent = _langchain_agent(model, [add])

    stream = await agent.stream("what is 2+3?", run_id="run-1")
    chunks = [c async for c in stream]
    result = await stream.result()

    assert result.text == "It is 5."
    assert result.error is None
    assert seen == ["run-1"]  # through runyard's tool runner, with its context
    assert any(isinstance(c, ToolExecutionStartChunk) and c.tool_name == "add" for c in chunks)
    (outcome,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert (outcome.tool_name, outcome.output, outcome.is_error) == ("add", 5, False)
    assert "".join(c.delta for c in chunks if isinstance(c, TextDeltaChunk)) == "It is 5."
    assert _tool_results(model) == [5]  # the output itself, as runyard's loop gives it
    assert result.usage.requests == 2
    assert [m.role for m in result.messages] == ["assistant", "tool", "assistant"]


async def test_a_failing_tool_is_a_tool_error_the_model_reads() -> None:
    @tool
    def broken(item: str) -> str:
        """Always fails."""
        raise RuntimeError(f"no {item}")

    model = scripted_model([call("broken", {"item": "x"}), text("Sorry.")])
    stream = await _langchain_agent(model, [broken]).stream("go")
    chunks = [c async for c in stream]

    (outcome,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert outcome.is_error
    assert outcome.output == "RuntimeError: no x"
    assert _tool_results(model) == ["RuntimeError: no x"]
    assert (await stream.result()).text == "Sorry."


async def test_a_tool_that_requires_approval_interrupts_and_runs_once_approved() -> None:
    sent: list[int] = []

    @tool(requires_approval=True)
    def wire(amount: int) -> str:
        """Send money."""
        sent.append(amount)
        return f"sent {amount}"

    checkpoints = InMemoryCheckpointStore()
    first = _langchain_agent(
        scripted_model([call("wire", {"amount": 9})]), [wire], checkpoint_store=checkpoints
    )
    stream = await first.stream("wire 9")
    chunks = [c async for c in stream]
    suspended = await stream.result()

    assert suspended.finish_reason == "tool-calls"
    (question,) = [c for c in chunks if isinstance(c, ToolCallSuspendedChunk)]
    assert question.payload == {"type": "approval", "tool_name": "wire", "args": {"amount": 9}}
    assert sent == []

    # Another process answers: it has only the checkpoint store.
    model = scripted_model([text("Done.")])
    second = _langchain_agent(model, [wire], checkpoint_store=checkpoints)
    result = await second.approve(
        "generate", run_id=stream.run_id, tool_call_id=question.tool_call_id
    )

    assert result.text == "Done."
    assert sent == [9]
    assert _tool_results(model) == ["sent 9"]


async def test_a_denied_call_is_a_tool_error_and_never_runs() -> None:
    sent: list[int] = []

    @tool(requires_approval=True)
    def wire(amount: int) -> str:
        """Send money."""
        sent.append(amount)
        return "sent"

    model = scripted_model([call("wire", {"amount": 9}), text("Not sent.")])
    agent = _langchain_agent(model, [wire])
    suspended = await agent.generate("wire 9")
    (question,) = suspended.pending_suspend

    result = await agent.deny(
        "generate", run_id=question.run_id, tool_call_id=question.tool_call_id, reason="no"
    )

    assert result.text == "Not sent."
    assert sent == []
    (denial,) = _tool_results(model)
    assert "no" in denial


def _colour_graph() -> Any:
    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt({"question": "Which colour?"})
        return {"messages": [AIMessage(f"You chose {answer}.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile()


@pytest.mark.parametrize(
    ("answer", "chosen"),
    [({"approved": True, "userInput": "teal"}, "teal"), ({"approved": True, "value": 7}, "7")],
)
async def test_a_graphs_own_interrupt_is_a_question_its_answer_resumes(
    answer: dict[str, Any], chosen: str
) -> None:
    checkpoints = InMemoryCheckpointStore()
    source = CustomGraph(_colour_graph(), "colours")
    first = GraphAgent("colours", scripted_model([]), source, checkpoint_store=checkpoints)
    suspended = await first.generate("pick")

    (question,) = suspended.pending_suspend
    assert question.tool_name == INTERRUPT_TOOL
    assert question.args == {"question": "Which colour?"}
    assert question.payload == {
        "inputType": "text",
        "question": "Which colour?",
        "message": "Which colour?",
        "langgraph": "interrupt",
    }

    second = GraphAgent("colours", scripted_model([]), source, checkpoint_store=checkpoints)
    result = await second.resume(
        "stream", answer, run_id=question.run_id, tool_call_id=question.tool_call_id
    )
    deltas = [c.delta async for c in result if isinstance(c, TextDeltaChunk)]

    assert "".join(deltas) == f"You chose {chosen}."
    assert (await result.result()).error is None


async def test_a_graph_without_messages_takes_the_users_json_object() -> None:
    class Sum(TypedDict):
        a: int
        b: int
        total: int

    builder = StateGraph(Sum)
    builder.add_node("add", lambda state: {"total": state["a"] + state["b"]})
    builder.add_edge(START, "add")
    builder.add_edge("add", END)
    agent = GraphAgent("sum", scripted_model([]), CustomGraph(builder.compile(), "sum"))

    assert (await agent.generate('{"a": 2, "b": 3}')).error is None
    refused = await agent.generate("two and three")
    assert "send a JSON object of its input (fields: a, b, total)" in str(refused.error)


async def test_a_factory_graph_gets_the_agents_tools() -> None:
    from langchain.agents import create_agent

    counter = Counter()
    book = Tool.from_function(counter.run, name="book", description="Books an item.")
    model = scripted_model([call("book", {"item": "x"}), text("Booked.")])

    def factory(tools: list[Any]) -> Any:
        return create_agent(RunyardChatModel(model=model), tools)

    agent = GraphAgent("f", model, CustomGraph(factory, "f"), tools=[book])
    result = await agent.generate("book x")

    assert result.text == "Booked."
    assert (counter.started, counter.done) == (1, 1)


async def _die(task: asyncio.Task[Any], until: asyncio.Event) -> None:
    await asyncio.wait_for(until.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("retry_safe", [True, False])
async def test_a_graph_taken_over_runs_a_call_in_flight_again_only_when_retry_safe(
    retry_safe: bool,
) -> None:
    journal = InMemoryRunJournal()
    counter = Counter()
    counter.hang = True
    book = Tool.from_function(counter.run, name="book", description="Books.", retry_safe=retry_safe)
    calls = [ToolCall("book", {"item": "x"}, "c1")]
    first = _langchain_agent(scripted_model([Turn(tool_calls=calls)]), [book])
    run = asyncio.create_task(first.generate("go", journal=journal, run_id="run-1"))
    await _die(run, counter.blocked)
    assert journal.state is not None
    assert journal.state.graph is not None
    assert not journal.calls["c1"].settled

    counter.hang = False
    model = scripted_model([text("Booked.")])
    second = _langchain_agent(model, [book])
    result = await second.recover("generate", journal.state, journal.calls, journal=journal)

    assert result.text == "Booked."
    assert result.run_id == "run-1"
    if retry_safe:
        assert (counter.started, counter.done) == (2, 1)
        assert _tool_results(model) == ["did x"]
    else:
        assert (counter.started, counter.done) == (1, 0)
        assert _tool_results(model) == [INTERRUPTED_TOOL_ERROR.format(name="book")]


async def test_a_graph_taken_over_replays_a_settled_call_instead_of_running_it() -> None:
    journal = InMemoryRunJournal()
    quick, slow = Counter(), Counter()
    slow.hang = True
    tools = [
        Tool.from_function(quick.run, name="quick", description="Quick.", retry_safe=True),
        Tool.from_function(slow.run, name="slow", description="Slow.", retry_safe=True),
    ]
    calls = [ToolCall("quick", {"item": "a"}, "c1"), ToolCall("slow", {"item": "b"}, "c2")]
    first = _langchain_agent(scripted_model([Turn(tool_calls=calls)]), tools)
    run = asyncio.create_task(first.generate("go", journal=journal))
    await _die(run, slow.blocked)
    assert journal.calls["c1"].settled
    # The progress names the calls its step runs: where the service's takeover resumes.
    assert journal.state is not None
    assert set(journal.state.pending_tool_calls) == {"c1", "c2"}

    slow.hang = False
    model = scripted_model([text("Both done.")])
    assert journal.state is not None
    result = await _langchain_agent(model, tools).recover("generate", journal.state, journal.calls)

    assert result.text == "Both done."
    assert (quick.started, quick.done) == (1, 1)
    assert (slow.started, slow.done) == (2, 1)
    assert sorted(_tool_results(model)) == ["did a", "did b"]


def _hitl_agent(model: ScriptedModel, mode: str, ran: list[dict[str, Any]]) -> GraphAgent:
    """A graph of one's own: ``create_agent`` with LangChain's human-in-the-loop middleware
    gating its ``send`` tool (a LangChain tool, not runyard's)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langchain_core.tools import tool as langchain_tool

    @langchain_tool
    def send(to: str) -> str:
        """Sends a message."""
        ran.append({"to": to})
        return f"sent to {to}"

    hitl = HumanInTheLoopMiddleware(
        {"send": {"allowed_decisions": ["approve", "edit", "reject", "respond"]}},
        interrupt_mode=mode,  # type: ignore[arg-type]
    )
    graph = create_agent(RunyardChatModel(model=model), [send], middleware=[hitl])
    return GraphAgent("hitl", model, CustomGraph(graph, "hitl"))


@pytest.mark.parametrize("mode", ["batched", "per_call"])
@pytest.mark.parametrize(
    ("answer", "sent_to", "model_reads"),
    [
        ({"approved": True}, ["ann"], "sent to ann"),
        ({"approved": True, "args": {"to": "bob"}}, ["bob"], "sent to bob"),
        ({"approved": False, "reason": "not now"}, [], "with reason: not now"),
        ({"approved": True, "userInput": "Ann is away"}, [], "Ann is away"),
    ],
)
async def test_langchains_human_in_the_loop_is_an_approval_answered_as_runyards(
    mode: str, answer: dict[str, Any], sent_to: list[str], model_reads: str
) -> None:
    ran: list[dict[str, Any]] = []
    model = scripted_model([call("send", {"to": "ann"}), text("Done.")])
    agent = _hitl_agent(model, mode, ran)
    suspended = await agent.generate("message ann")

    (question,) = suspended.pending_suspend
    assert (question.tool_name, question.args) == ("send", {"to": "ann"})
    assert question.payload["type"] == "approval"
    assert ran == []

    result = await agent.resume(
        "generate", answer, run_id=question.run_id, tool_call_id=question.tool_call_id
    )
    assert result.text == "Done."
    assert [r["to"] for r in ran] == sent_to
    (read,) = _tool_results(model)
    assert model_reads in str(read)


async def test_an_approval_answer_without_approved_is_refused_before_it_is_stored() -> None:
    from runyard.errors import ResumeDataError

    agent = _hitl_agent(scripted_model([call("send", {"to": "ann"})]), "per_call", [])
    (question,) = (await agent.generate("message ann")).pending_suspend

    with pytest.raises(ResumeDataError, match="approved: true or false"):
        await agent.prepare_resume(
            {"userInput": "hm"}, run_id=question.run_id, tool_call_id=question.tool_call_id
        )


async def test_an_aborted_graph_run_ends_cancelled_and_its_tool_is_stopped() -> None:
    counter = Counter()
    counter.hang = True
    book = Tool.from_function(counter.run, name="book", description="Books.")
    agent = _langchain_agent(scripted_model([call("book", {"item": "x"})]), [book])
    stream = await agent.stream("go")
    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
        if isinstance(chunk, ToolExecutionStartChunk):
            await asyncio.wait_for(counter.blocked.wait(), 5)
            assert agent.abort(stream.run_id)

    assert chunks[-1].status is RunStatus.CANCELLED
    assert (counter.started, counter.done) == (1, 0)
    assert not agent.running
