"""The telemetry hook: a span per run segment, model call and tool call, nested, ended with the
outcome, and forwarded to a sub-agent's run through ``as_tool``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runyard import TelemetrySpan
from runyard.agent import Agent
from runyard.errors import RunError
from runyard.telemetry import SpanKind
from runyard.testing import Turn, TurnUsage, call, scripted_model, text
from runyard.tools import tool


@dataclass(eq=False)
class RecordedSpan:
    recorder: Recorder
    kind: SpanKind
    name: str
    attributes: dict[str, object]
    parent: RecordedSpan | None
    ended: dict[str, object] | None = None
    error: BaseException | None = None

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        return self.recorder.record(kind, name, attributes, parent=self)

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        assert self.ended is None, f"{self.kind} span {self.name} ended twice"
        self.ended, self.error = dict(attributes or {}), error


@dataclass
class Recorder:
    """A recording fake of the hook: every span, in the order they started."""

    spans: list[RecordedSpan] = field(default_factory=list)

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        return self.record(kind, name, attributes, parent=None)

    def record(
        self,
        kind: SpanKind,
        name: str,
        attributes: Mapping[str, object],
        parent: RecordedSpan | None,
    ) -> RecordedSpan:
        span = RecordedSpan(self, kind, name, dict(attributes), parent)
        self.spans.append(span)
        return span

    def tree(self) -> list[tuple[str, str, str | None]]:
        return [(s.kind, s.name, s.parent.name if s.parent else None) for s in self.spans]


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(requires_approval=True)
async def wipe() -> str:
    """Wipe everything."""
    return "wiped"


async def test_a_run_reports_its_segment_model_calls_and_tool_calls_as_nested_spans() -> None:
    recorder = Recorder()
    model = scripted_model(
        [
            Turn(
                tool_calls=call("add", {"a": 1, "b": 2}, id="c1").tool_calls,
                usage=TurnUsage(10, 2),
            ),
            text("3", usage=TurnUsage(20, 1)),
        ],
        model_name="scripted",
    )
    agent = Agent("calc", model, tools=[add], telemetry=recorder)
    result = await agent.generate("1+2?")

    label = agent.model_label
    assert recorder.tree() == [
        ("run", "calc", None),
        ("model", label, "calc"),
        ("tool", "add", "calc"),
        ("model", label, "calc"),
    ]
    run, first, added, second = recorder.spans
    assert run.attributes == {
        "run_id": result.run_id,
        "segment": "start",
        "agent": "calc",
        "model": label,
    }
    assert run.ended == {
        "status": "success",
        "finish_reason": "stop",
        "input_tokens": 30,
        "output_tokens": 3,
    }
    assert run.error is None
    assert (first.attributes["iteration"], second.attributes["iteration"]) == (1, 2)
    assert first.ended == {
        "model": label,
        "finish_reason": "tool-calls",
        "input_tokens": 10,
        "output_tokens": 2,
        "cost": None,
        "time_to_first_token_s": None,  # generate does not stream
        "output_text": "",
        # Contents in the GenAI conventions' shape, built when read (here: by the recorder).
        "input_messages": [{"role": "user", "parts": [{"type": "text", "content": "1+2?"}]}],
        "system_instructions": [],
        "output_messages": [
            {
                "role": "assistant",
                "parts": [
                    {"type": "tool_call", "id": "c1", "name": "add", "arguments": {"a": 1, "b": 2}}
                ],
                "finish_reason": "tool_call",
            }
        ],
    }
    assert added.attributes == {
        "run_id": result.run_id,
        "tool_call_id": "c1",
        "arguments": {"a": 1, "b": 2},
    }
    assert added.ended == {"outcome": "success", "tool_known": True, "result": 3}


async def test_a_failing_run_ends_its_spans_with_the_error() -> None:
    recorder = Recorder()
    model = scripted_model([call("missing", id="m"), call("add", {"a": "x", "b": 1}, id="a")])
    agent = Agent("calc", model, tools=[add], telemetry=recorder, max_iterations=2)
    result = await agent.generate("go")

    run, _, missing, _, bad = recorder.spans
    assert missing.ended == {
        "outcome": "error",
        "tool_known": False,
        "error": "Tool missing not found",
    }
    assert bad.ended is not None
    assert bad.ended["outcome"] == "error"
    assert isinstance(result.error, RunError)
    assert run.error is result.error
    assert run.ended is not None
    assert run.ended["status"] == "failed"


async def test_a_suspended_run_and_its_resume_are_two_run_spans() -> None:
    recorder = Recorder()
    agent = Agent("ops", scripted_model([call("wipe", id="w"), text("done")]), tools=[wipe])
    suspended = await agent.generate("wipe it", telemetry=recorder)
    await agent.approve("generate", run_id=suspended.run_id, tool_call_id="w", telemetry=recorder)

    assert [(s.kind, s.attributes.get("segment")) for s in recorder.spans] == [
        ("run", "start"),
        ("model", None),
        ("tool", None),
        ("run", "resume"),
        ("tool", None),
        ("model", None),
    ]
    first_run, _, asked, resumed, approved, _ = recorder.spans
    assert first_run.ended is not None
    assert first_run.ended["status"] == "suspended"
    assert asked.ended == {"outcome": "suspended", "tool_known": True}
    assert approved.ended is not None
    assert approved.ended["outcome"] == "success"
    assert resumed.ended is not None
    assert resumed.ended["status"] == "success"


async def test_a_runs_own_telemetry_replaces_the_agents() -> None:
    agents, runs = Recorder(), Recorder()
    agent = Agent("a", scripted_model([text("hi"), text("again")]), telemetry=agents)
    await agent.generate("hi", telemetry=runs)
    await agent.generate("again")
    assert [s.kind for s in runs.spans] == ["run", "model"]
    assert [s.kind for s in agents.spans] == ["run", "model"]


async def test_a_sub_agents_spans_nest_under_the_tool_call_that_ran_it() -> None:
    recorder = Recorder()
    billing = Agent("billing", scripted_model([text("You owe 3 EUR.")]))
    model = scripted_model([call("billing", {"input": "owe?"}, id="b"), text("3 EUR.")])
    orchestrator = Agent("main", model, tools=[billing.as_tool("Bills")], telemetry=recorder)
    await orchestrator.generate("bill?")

    assert recorder.tree() == [
        ("run", "main", None),
        ("model", orchestrator.model_label, "main"),
        ("tool", "billing", "main"),
        ("run", "billing", "billing"),
        ("model", billing.model_label, "billing"),
        ("model", orchestrator.model_label, "main"),
    ]
    tool_span, sub_run = recorder.spans[2], recorder.spans[3]
    assert sub_run.parent is tool_span
    assert all(s.ended is not None for s in recorder.spans)
