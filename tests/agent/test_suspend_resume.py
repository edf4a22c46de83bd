"""Human-in-the-loop: suspension, pending windows, approve/deny/resume, checkpoints."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel
from pydantic_ai.messages import ModelRequest, ToolReturnPart

from runyard.agent import Agent
from runyard.errors import ResumeDataError, ResumeError
from runyard.runtime import (
    AgentState,
    FinishChunk,
    InMemoryCheckpointStore,
    PendingSuspend,
    RunStatus,
    ToolCallSuspendedChunk,
)
from runyard.testing import ToolCall, Turn, TurnUsage, call, scripted_model, text
from runyard.tools import Suspend, ToolContext, tool

APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string"},
        "args": {"type": "object"},
    },
    "required": ["approved"],
}


def _make_tools(runs: list[str]) -> list[object]:
    @tool(requires_approval=True)
    def delete(item: str) -> dict[str, str]:
        """Delete an item."""
        runs.append(f"delete {item}")
        return {"deleted": item}

    @tool
    def note(text: str) -> str:
        """Take a note."""
        runs.append(f"note {text}")
        return "noted"

    return [delete, note]


def _returns(history: list[object]) -> list[tuple[str, object]]:
    """Tool results the model was sent after its last response."""
    trailing: list[tuple[str, object]] = []
    for message in reversed(history):
        if not isinstance(message, ModelRequest):
            break
        parts = [
            (p.tool_call_id, p.content) for p in message.parts if isinstance(p, ToolReturnPart)
        ]
        trailing[:0] = parts
    return trailing


async def _stored_state(store: InMemoryCheckpointStore, run_id: str) -> AgentState:
    """The run's checkpoint as the store holds it (what a new process would resume from)."""
    raw = await store.load(run_id)
    assert raw is not None, f"no checkpoint stored for {run_id}"
    return AgentState.model_validate(raw)


async def test_a_call_needing_approval_suspends_the_run() -> None:
    runs: list[str] = []
    store = InMemoryCheckpointStore()
    agent = Agent(
        "a",
        scripted_model([call("delete", {"item": "x"}, id="d")]),
        tools=_make_tools(runs),
        checkpoint_store=store,
    )
    result = await agent.generate("delete x")
    assert result.finish_reason == "tool-calls"
    assert result.pending_suspend == [
        PendingSuspend(
            run_id=result.run_id,
            tool_call_id="d",
            tool_name="delete",
            args={"item": "x"},
            payload={"type": "approval", "tool_name": "delete", "args": {"item": "x"}},
            resume_schema=APPROVAL_SCHEMA,
        )
    ]
    assert agent.get_state().status is RunStatus.SUSPENDED
    stored = await _stored_state(store, result.run_id)
    assert stored.status is RunStatus.SUSPENDED
    assert list(stored.pending_tool_calls) == ["d"]
    assert stored.pending_tool_calls["d"].payload == result.pending_suspend[0].payload
    assert runs == []


async def test_an_approval_with_edited_arguments_runs_the_call_on_them() -> None:
    runs: list[str] = []
    model = scripted_model(
        [
            call("delete", {"item": "x"}, id="d"),
            text("ok"),
            call("delete", {"item": "x"}),
            text("ok"),
        ]
    )
    agent = Agent("a", model, tools=_make_tools(runs))
    suspended = await agent.generate("delete x")

    edited = await agent.resume(
        "generate",
        {"approved": True, "args": {"item": "y"}},
        run_id=suspended.run_id,
        tool_call_id="d",
    )
    assert runs == ["delete y"]
    assert _returns(model.requests[-1]) == [("d", {"deleted": "y"})]
    assert edited.text == "ok"

    again = await agent.generate("delete x")
    refused = await agent.resume(
        "generate",
        {"approved": True, "args": {"item": 3}},
        run_id=again.run_id,
        tool_call_id=again.pending_suspend[0].tool_call_id,
    )
    assert runs == ["delete y"]  # arguments that do not fit the tool never reach it
    ((_, error),) = _returns(model.requests[-1])
    assert "the edited arguments are invalid" in str(error)
    assert refused.text == "ok"


async def test_later_windows_stay_pending_when_a_call_suspends() -> None:
    runs: list[str] = []
    calls = [
        ToolCall("delete", {"item": "a"}, id="A"),
        ToolCall("note", {"text": "b"}, id="B"),
        ToolCall("note", {"text": "c"}, id="C"),
    ]
    model = scripted_model([Turn(tool_calls=calls), text("all done")])
    store = InMemoryCheckpointStore()
    agent = Agent(
        "a", model, tools=_make_tools(runs), tool_call_concurrency=2, checkpoint_store=store
    )

    result = await agent.generate("go")

    assert runs == ["note b"]
    assert [p.tool_call_id for p in result.pending_suspend] == ["A"]
    pending = (await _stored_state(store, result.run_id)).pending_tool_calls
    assert {k: v.suspended for k, v in pending.items()} == {"A": True, "C": False}
    assert pending["C"].args == {"text": "c"}

    resumed = await agent.approve("generate", run_id=result.run_id, tool_call_id="A")

    assert runs == ["note b", "delete a", "note c"]
    assert resumed.text == "all done"
    assert resumed.run_id == result.run_id
    assert sorted(_returns(model.requests[1])) == [
        ("A", {"deleted": "a"}),
        ("B", "noted"),
        ("C", "noted"),
    ]


async def test_a_run_with_several_suspensions_stays_suspended_until_each_is_answered() -> None:
    runs: list[str] = []
    calls = [ToolCall("delete", {"item": "a"}, id="A"), ToolCall("delete", {"item": "b"}, id="B")]
    model = scripted_model([Turn(tool_calls=calls), text("done")])
    agent = Agent("a", model, tools=_make_tools(runs), tool_call_concurrency=math.inf)

    first = await agent.generate("go")
    assert [p.tool_call_id for p in first.pending_suspend] == ["A", "B"]

    second = await agent.approve("generate", run_id=first.run_id, tool_call_id="B")
    assert second.finish_reason == "tool-calls"
    assert [p.tool_call_id for p in second.pending_suspend] == ["A"]
    assert model.remaining == 1

    third = await agent.deny("generate", run_id=first.run_id, tool_call_id="A", reason="keep it")
    assert third.text == "done"
    assert runs == ["delete b"]
    assert sorted(_returns(model.requests[1])) == [
        ("A", 'Tool "delete" was denied by the user: keep it'),
        ("B", {"deleted": "b"}),
    ]
    assert agent.get_state().status is RunStatus.SUCCESS


async def test_a_fresh_agent_sharing_only_the_checkpoint_store_resumes_the_run() -> None:
    store = InMemoryCheckpointStore()
    runs: list[str] = []
    first_agent = Agent(
        "a",
        scripted_model([call("delete", {"item": "x"}, id="d")]),
        tools=_make_tools(runs),
        checkpoint_store=store,
    )
    suspended = await first_agent.generate("delete x")

    second_agent = Agent(
        "a", scripted_model([text("deleted x")]), tools=_make_tools(runs), checkpoint_store=store
    )
    resumed = await second_agent.approve("generate", run_id=suspended.run_id, tool_call_id="d")

    assert resumed.text == "deleted x"
    assert runs == ["delete x"]
    assert len(store) == 0


async def test_a_completed_call_never_runs_again_after_a_resume() -> None:
    runs: list[str] = []
    agent = Agent(
        "a",
        scripted_model([call("delete", {"item": "x"}, id="d"), text("ok")]),
        tools=_make_tools(runs),
    )
    suspended = await agent.generate("go")
    await agent.approve("generate", run_id=suspended.run_id, tool_call_id="d")
    with pytest.raises(ResumeError, match="No suspended run found"):
        await agent.approve("generate", run_id=suspended.run_id, tool_call_id="d")
    assert runs == ["delete x"]


async def test_resume_refuses_unknown_runs_calls_and_bad_data() -> None:
    runs: list[str] = []
    agent = Agent(
        "a", scripted_model([call("delete", {"item": "x"}, id="d")]), tools=_make_tools(runs)
    )
    suspended = await agent.generate("go")
    with pytest.raises(ResumeError, match="No suspended run found for runId: run_nope"):
        await agent.approve("generate", run_id="run_nope", tool_call_id="d")
    with pytest.raises(ResumeError, match="No tool call found for toolCallId: zzz"):
        await agent.approve("generate", run_id=suspended.run_id, tool_call_id="zzz")
    with pytest.raises(ResumeError, match="Invalid resume payload"):
        await agent.resume(
            "generate", {"approved": "maybe"}, run_id=suspended.run_id, tool_call_id="d"
        )
    assert agent.get_state().status is RunStatus.SUSPENDED


async def test_a_tool_suspends_itself_and_gets_the_validated_resume_data() -> None:
    class Answer(BaseModel):
        choice: int

    class Question(BaseModel):
        question: str

    @tool(resume_schema=Answer, suspend_schema=Question)
    async def ask(ctx: ToolContext, question: str) -> object:
        """Ask the user a question."""
        if ctx.resume_data is None:
            return Suspend({"question": question})
        return {"picked": ctx.resume_data.choice}

    model = scripted_model([call("ask", {"question": "which?"}, id="q"), text("thanks")])
    agent = Agent("a", model, tools=[ask])
    suspended = await agent.generate("go")
    (pending,) = suspended.pending_suspend
    assert pending.payload == {"question": "which?"}
    assert pending.resume_schema == Answer.model_json_schema()

    with pytest.raises(ResumeError, match="choice"):
        await agent.resume("generate", {"choice": "x"}, run_id=suspended.run_id, tool_call_id="q")
    done = await agent.resume("generate", {"choice": 2}, run_id=suspended.run_id, tool_call_id="q")
    assert done.text == "thanks"
    assert _returns(model.requests[1]) == [("q", {"picked": 2})]


async def test_a_suspend_payload_that_breaks_its_schema_is_a_tool_error() -> None:
    class Question(BaseModel):
        question: str

    @tool(resume_schema={"type": "object"}, suspend_schema=Question)
    async def ask() -> object:
        """Ask badly."""
        return Suspend({"nope": 1})

    model = scripted_model([call("ask", id="q"), text("ok")])
    result = await Agent("a", model, tools=[ask]).generate("go")
    assert result.pending_suspend == []
    ((_, content),) = _returns(model.requests[1])
    assert str(content).startswith("Invalid suspend payload: question: Field required")


async def test_streamed_suspension_emits_suspended_chunks_then_finish() -> None:
    runs: list[str] = []
    agent = Agent(
        "a",
        scripted_model([call("delete", {"item": "x"}, id="d"), text("gone")]),
        tools=_make_tools(runs),
    )
    stream = await agent.stream("delete x")
    chunks = [c async for c in stream]
    assert [c.type for c in chunks[-2:]] == ["tool-call-suspended", "finish"]
    assert chunks[-2] == ToolCallSuspendedChunk(
        run_id=stream.run_id,
        tool_call_id="d",
        tool_name="delete",
        args={"item": "x"},
        payload={"type": "approval", "tool_name": "delete", "args": {"item": "x"}},
        resume_schema=APPROVAL_SCHEMA,
    )
    assert chunks[-1].finish_reason == "tool-calls"  # type: ignore[union-attr]

    resumed = await agent.approve("stream", run_id=stream.run_id, tool_call_id="d")
    types = [c.type async for c in resumed]
    assert types[:2] == ["tool-execution-start", "tool-result"]
    assert types[-1] == "finish"
    assert (await resumed.result()).text == "gone"
    assert runs == ["delete x"]


async def test_the_resumed_segments_finish_reports_the_whole_runs_usage() -> None:
    first = Turn(tool_calls=[ToolCall("delete", {"item": "a"})], usage=TurnUsage(10, 2))
    agent = Agent(
        name="a",
        model=scripted_model([first, text("Deleted.", usage=TurnUsage(30, 5))]),
        tools=_make_tools([]),
    )
    suspended = await agent.stream("delete a")
    (asked,) = [c async for c in suspended if isinstance(c, ToolCallSuspendedChunk)]
    resumed = await agent.approve("stream", run_id=asked.run_id, tool_call_id=asked.tool_call_id)
    (finish,) = [c async for c in resumed if isinstance(c, FinishChunk)]

    usage = finish.total_usage
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (40, 7, 2)


class CountingCheckpointStore(InMemoryCheckpointStore):
    """Counts the checkpoint loads."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    async def load(self, key: str) -> dict[str, object] | None:
        self.loads += 1
        return await super().load(key)


async def test_a_prepared_resume_checks_the_data_then_runs_without_loading_again() -> None:
    runs: list[str] = []
    checkpoints = CountingCheckpointStore()
    agent = Agent(
        "a",
        scripted_model([call("delete", {"item": "x"}, id="d"), text("gone")]),
        tools=_make_tools(runs),
        checkpoint_store=checkpoints,
    )
    suspended = await agent.generate("go")
    with pytest.raises(ResumeDataError) as refused:
        await agent.prepare_resume({"approved": "maybe"}, run_id=suspended.run_id, tool_call_id="d")
    before = checkpoints.loads
    prepared = await agent.prepare_resume(
        {"approved": True}, run_id=suspended.run_id, tool_call_id="d"
    )
    done = await agent.resume_prepared("generate", prepared)

    assert (refused.value.tool_name, runs) == ("delete", ["delete x"])
    assert "approved" in refused.value.problem
    assert checkpoints.loads - before == 1
    assert done.text == "gone"
    assert len(checkpoints) == 0


async def test_a_tool_that_suspends_without_a_resume_schema_gets_a_tool_error() -> None:
    @tool
    async def ask() -> Suspend:
        """Ask the user something."""
        return Suspend({"question": "which one?"})

    model = scripted_model([call("ask", id="q"), text("could not ask")])
    store = InMemoryCheckpointStore()
    agent = Agent("a", model, tools=[ask], checkpoint_store=store)
    result = await agent.generate("go")

    assert result.pending_suspend == []
    assert (result.finish_reason, result.text) == ("stop", "could not ask")
    assert _returns(model.requests[1]) == [("q", "Tool ask has no resume schema")]
    assert len(store) == 0
    assert agent.get_state().status is RunStatus.SUCCESS
