"""``ContentGate``: contents reach the telemetry behind it only while something records them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runyard.telemetry.content_gate import ContentGate


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
