"""``ContentGate``: contents reach the telemetry behind it only while something records them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runyard.telemetry.content_gate import ContentGate
from runyard.telemetry.lazy_attributes import LazyAttributes


@dataclass
class Seen:
    started: list[Mapping[str, object]] = field(default_factory=list)
    ended: list[Mapping[str, object] | None] = field(default_factory=list)

    def start_span(self, kind: str, name: str, attributes: Mapping[str, object]) -> Seen:
        self.started.append(attributes)
        return self

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        self.ended.append(attributes)


def test_contents_are_dropped_unless_wanted_and_metadata_always_passes() -> None:
    seen, wanted = Seen(), [False]
    gate = ContentGate(seen, lambda: wanted[0])
    run = gate.start_span("run", "a", {"run_id": "r1"})
    tool = run.start_span("tool", "t", {"tool_call_id": "c1", "arguments": {"k": "v"}})
    tool.end(attributes={"outcome": "success", "result": 3})
    wanted[0] = True
    model = run.start_span("model", "m", {"iteration": 1})
    model.end(attributes={"finish_reason": "stop", "output_text": "hi"})

    assert seen.started == [{"run_id": "r1"}, {"tool_call_id": "c1"}, {"iteration": 1}]
    assert seen.ended == [{"outcome": "success"}, {"finish_reason": "stop", "output_text": "hi"}]


def test_lazy_contents_are_never_built_while_nobody_records_them() -> None:
    built: list[str] = []

    def prompt() -> object:
        built.append("prompt")
        return [{"role": "user", "parts": []}]

    seen, wanted = Seen(), [False]
    model = ContentGate(seen, lambda: wanted[0]).start_span("model", "m", {})
    model.end(attributes=LazyAttributes({"finish_reason": "stop"}, {"input_messages": prompt}))
    assert seen.ended == [{"finish_reason": "stop"}]
    assert built == []

    wanted[0] = True
    model.end(attributes=LazyAttributes({}, {"input_messages": prompt}))
    assert built == []  # passed on unread: the telemetry behind reads what it records
    ended = seen.ended[-1]
    assert ended is not None
    assert ended["input_messages"] == [{"role": "user", "parts": []}]
    assert built == ["prompt"]
