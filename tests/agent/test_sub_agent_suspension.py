"""A sub-agent that asks: its suspension suspends the caller, lives in the caller's checkpoint,
and answering it on the caller's run resumes the sub-agent and then the caller."""

from __future__ import annotations

import math

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from runyard.agent import Agent
from runyard.errors import ResumeDataError
from runyard.runtime import (
    AgentState,
    FinishChunk,
    InMemoryCheckpointStore,
    RunStatus,
    ToolCallSuspendedChunk,
)
from runyard.testing import ToolCall, Turn, call, scripted_model, text
from runyard.testing.scripted import TurnSource
from runyard.tools import Suspend, Tool, ToolContext, tool


def _deleter(runs: list[str]) -> Tool:
    @tool(requires_approval=True)
    def delete(item: str) -> dict[str, str]:
        """Delete an item."""
        runs.append(item)
        return {"deleted": item}

    return delete


@tool(
    resume_schema={
        "type": "object",
        "properties": {"color": {"type": "string"}},
        "required": ["color"],
    }
)
def ask_color(ctx: ToolContext) -> Suspend | str:
    """Ask the user for a color."""
    if ctx.resume_data is None:
        return Suspend({"message": "Which color?"})
    return str(ctx.resume_data["color"])


def _last_tool_return(messages: list[ModelMessage]) -> object:
    returns = [
        p.content
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]
    return returns[-1]


CHILD_TURNS: list[TurnSource] = [call("delete", {"item": "a"}, id="c_del"), text("Deleted a.")]
PARENT_TURNS: list[TurnSource] = [
    call("cleaner", {"input": "delete a"}, id="p_sub"),
    lambda messages: text(f"Cleaner said: {_last_tool_return(messages)}"),
]


def _pair(
    runs: list[str],
    store: InMemoryCheckpointStore,
    child_store: InMemoryCheckpointStore,
    *,
    resumed: bool = False,
) -> Agent:
    """A parent whose ``cleaner`` sub-agent deletes with approval; the parent's last turn quotes
    the sub-agent's answer. ``resumed``: the models play on from the suspension."""
    skip = 1 if resumed else 0
    child = Agent(
        "cleaner",
        scripted_model(CHILD_TURNS[skip:]),
        tools=[_deleter(runs)],
        checkpoint_store=child_store,
    )
    return Agent(
        "main",
        scripted_model(PARENT_TURNS[skip:]),
        tools=[child.as_tool("Cleans up")],
        checkpoint_store=store,
    )


async def test_a_sub_agents_approval_suspends_the_caller_under_the_sub_agents_name() -> None:
    runs: list[str] = []
    store, child_store = InMemoryCheckpointStore(), InMemoryCheckpointStore()
    parent = _pair(runs, store, child_store)

    stream = await parent.stream("clean up")
    chunks = [c async for c in stream]

    (asked,) = [c for c in chunks if isinstance(c, ToolCallSuspendedChunk)]
    assert (asked.run_id, asked.tool_call_id, asked.tool_name, asked.agent_id) == (
        stream.run_id,
        "c_del",
        "delete",
        "cleaner",
    )
    assert asked.args == {"item": "a"}
    assert asked.payload == {"type": "approval", "tool_name": "delete", "args": {"item": "a"}}
    finish = chunks[-1]
    assert isinstance(finish, FinishChunk)
    assert finish.status is RunStatus.SUSPENDED
    assert runs == []
    # One checkpoint, the caller's, holds the sub-agent's run; the sub-agent's store keeps none.
    assert len(child_store) == 0
    saved = AgentState.model_validate(await store.load(stream.run_id))
    nested = saved.pending_tool_calls["p_sub"].nested
    assert nested is not None
    assert nested.agent_id == "cleaner"
    assert list(nested.state.pending_tool_calls) == ["c_del"]


async def test_approving_the_sub_agents_call_resumes_it_then_the_caller_in_a_new_process() -> None:
    runs: list[str] = []
    store = InMemoryCheckpointStore()
    first = await _pair(runs, store, InMemoryCheckpointStore()).generate("clean up")
    assert [(p.tool_call_id, p.agent_id) for p in first.pending_suspend] == [("c_del", "cleaner")]

    # Fresh agent objects over the same checkpoint store: nothing is kept in memory.
    again = _pair(runs, store, InMemoryCheckpointStore(), resumed=True)
    result = await again.approve("generate", run_id=first.run_id, tool_call_id="c_del")

    assert result.error is None
    assert runs == ["a"]
    assert result.text == "Cleaner said: {'result': 'Deleted a.'}"
    assert [u.agent for u in result.sub_agent_usage] == ["cleaner"]
    assert await store.load(first.run_id) is None


async def test_a_denied_sub_agent_call_reaches_the_sub_agent_as_a_tool_error() -> None:
    runs: list[str] = []
    seen: list[object] = []

    def reply(messages: list[ModelMessage]) -> Turn:
        seen.append(_last_tool_return(messages))
        return text("Could not delete.")

    child = Agent(
        "cleaner",
        scripted_model([call("delete", {"item": "a"}, id="c_del"), reply]),
        tools=[_deleter(runs)],
    )
    parent = Agent(
        "main",
        scripted_model([call("cleaner", {"input": "delete a"}, id="p_sub"), text("ok")]),
        tools=[child.as_tool("Cleans up")],
    )
    first = await parent.generate("clean up")
    result = await parent.deny(
        "generate", run_id=first.run_id, tool_call_id="c_del", reason="keep it"
    )

    assert runs == []
    assert result.text == "ok"
    assert result.tool_calls[0].output == {"result": "Could not delete."}
    assert seen == ['Tool "delete" was denied by the user: keep it']


async def test_a_caller_stays_suspended_until_every_question_of_its_sub_agent_is_answered() -> None:
    runs: list[str] = []
    child = Agent(
        "cleaner",
        scripted_model(
            [
                Turn(
                    tool_calls=[
                        ToolCall("delete", {"item": "a"}, "c_a"),
                        ToolCall("ask_color", {}, "c_color"),
                    ]
                ),
                text("Done."),
            ]
        ),
        tools=[_deleter(runs), ask_color],
        tool_call_concurrency=math.inf,
    )
    parent = Agent(
        "main",
        scripted_model([call("cleaner", {"input": "go"}, id="p_sub"), text("finished")]),
        tools=[child.as_tool("Cleans up")],
    )
    first = await parent.generate("go")
    asked = {p.tool_call_id: p.payload for p in first.pending_suspend}
    assert set(asked) == {"c_a", "c_color"}
    assert asked["c_color"] == {"message": "Which color?"}

    second = await parent.resume(
        "generate", {"color": "red"}, run_id=first.run_id, tool_call_id="c_color"
    )
    assert [p.tool_call_id for p in second.pending_suspend] == ["c_a"]
    assert second.text == ""

    third = await parent.approve("generate", run_id=first.run_id, tool_call_id="c_a")
    assert third.pending_suspend == []
    assert third.text == "finished"
    assert runs == ["a"]
    assert third.tool_calls[0].output == {"result": "Done."}


async def test_an_answer_that_does_not_fit_the_sub_agents_call_is_refused_before_anything_runs() -> (
    None
):
    child = Agent(
        "asker",
        scripted_model([call("ask_color", {}, id="c_color"), text("red it is")]),
        tools=[ask_color],
    )
    parent = Agent(
        "main",
        scripted_model([call("asker", {"input": "?"}, id="p_sub"), text("ok")]),
        tools=[child.as_tool("Asks")],
    )
    first = await parent.generate("go")

    with pytest.raises(ResumeDataError) as refused:
        await parent.prepare_resume({"colour": 1}, run_id=first.run_id, tool_call_id="c_color")
    assert refused.value.tool_name == "ask_color"
    prepared = await parent.prepare_resume(
        {"color": "red"}, run_id=first.run_id, tool_call_id="c_color"
    )
    assert prepared.tool_call_id == "p_sub"
    result = await parent.resume_prepared("generate", prepared)
    assert result.tool_calls[0].output == {"result": "red it is"}


async def test_a_grandchilds_question_is_answered_on_the_top_run() -> None:
    runs: list[str] = []
    grandchild = Agent(
        "deleter",
        scripted_model([call("delete", {"item": "x"}, id="g_del"), text("gone")]),
        tools=[_deleter(runs)],
    )
    child = Agent(
        "middle",
        scripted_model([call("deleter", {"input": "x"}, id="c_sub"), text("middle done")]),
        tools=[grandchild.as_tool("Deletes")],
    )
    parent = Agent(
        "top",
        scripted_model([call("middle", {"input": "go"}, id="p_sub"), text("top done")]),
        tools=[child.as_tool("Middle")],
    )
    first = await parent.generate("go")
    assert [(p.tool_call_id, p.agent_id) for p in first.pending_suspend] == [("g_del", "deleter")]

    result = await parent.approve("generate", run_id=first.run_id, tool_call_id="g_del")
    assert (result.text, runs) == ("top done", ["x"])
    assert result.tool_calls[0].output == {"result": "middle done"}
