"""A loop's own sub-agents (a LangGraph subgraph) and its own data → wire events: a sub-agent
is spawned under the mapper's agent at its first chunk, its chunks are mapped under its id, its
own sub-agents nest under it, and its end — or the run's cancel — completes it; data is a status
line when it is text, else a JSON content block."""

from __future__ import annotations

from typing import Any

from runyard.messages import AgentMessage, ToolCallPart
from runyard.protocol import WireEvent
from runyard.runtime import (
    CustomDataChunk,
    MessageChunk,
    StreamChunk,
    SubAgentChunk,
    SubAgentEndChunk,
    TextDeltaChunk,
)
from runyard.service import ChunkMapper


def _seen(events: list[WireEvent]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (e.type, e.agent_id, e.payload.model_dump(mode="json", by_alias=True, exclude_none=True))
        for e in events
    ]


def _map(mapper: ChunkMapper, *chunks: StreamChunk) -> list[WireEvent]:
    return [e for c in chunks for e in mapper.map(c)]


def test_nested_sub_agents_spawn_under_their_parents_and_complete_with_their_results() -> None:
    inner = SubAgentChunk("b:2", "b", TextDeltaChunk("deep"))
    events = _map(
        ChunkMapper("r1", "main"),
        SubAgentChunk("a:1", "a", TextDeltaChunk("hi")),
        SubAgentChunk("a:1", "a", inner),
        SubAgentChunk("a:1", "a", SubAgentEndChunk("b:2", "b", "deep")),
        SubAgentEndChunk("a:1", "a", "hi"),
    )

    spawned = {"tools": [], "kind": "subgraph"}
    assert _seen(events) == [
        ("agent-spawned", "a:1", {"parentId": "main", "role": "a", **spawned}),
        ("text-delta", "a:1", {"text": "hi"}),
        ("agent-spawned", "b:2", {"parentId": "a:1", "role": "b", **spawned}),
        ("text-delta", "b:2", {"text": "deep"}),
        ("agent-completed", "b:2", {"role": "b", "result": "deep"}),
        ("agent-completed", "a:1", {"role": "a", "result": "hi"}),
    ]


def test_a_sub_agent_seen_again_after_its_end_is_spawned_again() -> None:
    mapper = ChunkMapper("r1", "main")
    _map(mapper, SubAgentEndChunk("a:1", "a", ""))

    again = _map(mapper, SubAgentChunk("a:1", "a", TextDeltaChunk("x")))

    assert [e.type for e in again] == ["agent-spawned", "text-delta"]


def test_a_cancel_closes_the_calls_of_running_sub_agents_and_ends_them_cancelled() -> None:
    mapper = ChunkMapper("r1", "main")
    call = ToolCallPart(tool_call_id="c1", tool_name="look", args={})
    asked = MessageChunk(AgentMessage(role="assistant", parts=[call]))
    _map(mapper, SubAgentChunk("a:1", "a", SubAgentChunk("b:2", "b", asked)))

    closed = _seen(mapper.cancel_open_calls())

    assert closed == [
        ("tool-error", "b:2", {"toolCallId": "c1", "error": "Cancelled by user"}),
        ("agent-completed", "b:2", {"role": "b", "result": "", "status": "cancelled"}),
        ("agent-completed", "a:1", {"role": "a", "result": "", "status": "cancelled"}),
    ]
    assert mapper.cancel_open_calls() == []


def test_a_failure_ends_running_sub_agents_with_its_error() -> None:
    mapper = ChunkMapper("r1", "main")
    _map(mapper, SubAgentChunk("a:1", "a", TextDeltaChunk("x")))

    (ended,) = _seen(mapper.cancel_open_calls("model down"))

    assert ended == ("agent-completed", "a:1", {"role": "a", "result": "", "error": "model down"})


def test_the_loops_own_data_is_a_status_line_or_a_json_block() -> None:
    events = _map(ChunkMapper("r1", "main"), CustomDataChunk("Searching"), CustomDataChunk([1, 2]))

    assert _seen(events) == [
        ("status", "main", {"message": "Searching"}),
        ("content", "main", {"blocks": [{"type": "json", "data": [1, 2]}]}),
    ]
