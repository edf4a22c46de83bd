from __future__ import annotations

from runyard.messages import AgentMessage, CustomMessage, ToolCallPart, ToolResultPart
from runyard.runtime import AgentMessageList, strip_orphaned_tool_messages


def _call(call_id: str) -> AgentMessage:
    return AgentMessage(
        role="assistant", parts=[ToolCallPart(tool_call_id=call_id, tool_name="t", args={})]
    )


def _result(call_id: str) -> AgentMessage:
    return AgentMessage(
        role="tool", parts=[ToolResultPart(tool_call_id=call_id, tool_name="t", result=1)]
    )


def test_live_messages_get_strictly_increasing_timestamps_after_history() -> None:
    messages = AgentMessageList()
    messages.add_history([AgentMessage.user("old", created_at=5_000)])
    added = messages.add_input(
        [AgentMessage.user("a", created_at=10), AgentMessage.user("b", created_at=10)]
    )
    response = messages.add_response([AgentMessage.assistant("c", created_at=1)])
    stamps = [m.created_at for m in messages.all]
    assert stamps == [5_000, 5_001, 5_002, 5_003]
    assert [m.created_at for m in [*added, *response]] == [5_001, 5_002, 5_003]


def test_a_message_stamped_with_next_created_at_is_added_as_it_is() -> None:
    messages = AgentMessageList()
    messages.add_history([AgentMessage.user("old", created_at=2**41)])  # later than now
    made = AgentMessage.assistant("next", created_at=messages.next_created_at())
    (added,) = messages.add_response([made])
    assert added is made
    assert added.created_at == 2**41 + 1


def test_history_keeps_its_stored_timestamps_even_when_equal() -> None:
    messages = AgentMessageList()
    first, second = AgentMessage.user("1", created_at=100), AgentMessage.user("2", created_at=100)
    messages.add_history([first, second])
    assert [m.text for m in messages.all] == ["1", "2"]
    assert [m.created_at for m in messages.all] == [100, 100]


def test_turn_delta_is_input_and_response_while_response_delta_is_response_only() -> None:
    messages = AgentMessageList()
    messages.add_history([AgentMessage.user("old", created_at=1)])
    messages.add_input([AgentMessage.user("new")])
    messages.add_response([AgentMessage.assistant("answer")])
    assert [m.text for m in messages.turn_delta()] == ["new", "answer"]  # type: ignore[union-attr]
    assert [m.text for m in messages.response_delta()] == ["answer"]  # type: ignore[union-attr]


def test_custom_messages_never_reach_the_model() -> None:
    messages = AgentMessageList()
    messages.add_input([AgentMessage.user("hi")])
    messages.add_response([CustomMessage(type="card", data={})])
    assert [m.role for m in messages.for_llm()] == ["user"]
    assert len(messages.turn_delta()) == 2


def test_serialisation_restores_the_three_sets_and_the_clock() -> None:
    messages = AgentMessageList()
    messages.add_history([AgentMessage.user("old", created_at=1)])
    messages.add_input([AgentMessage.user("in")])
    messages.add_response([AgentMessage.assistant("out")])
    blob = messages.serialize().model_dump_json()
    restored = AgentMessageList.deserialize(messages.serialize().model_validate_json(blob))
    assert [m.id for m in restored.turn_delta()] == [m.id for m in messages.turn_delta()]
    assert [m.id for m in restored.response_delta()] == [m.id for m in messages.response_delta()]
    (later,) = restored.add_response([AgentMessage.assistant("later", created_at=1)])
    assert later.created_at == messages.all[-1].created_at + 1


def test_unpaired_tool_calls_and_results_are_stripped_and_empty_messages_dropped() -> None:
    text_and_call = AgentMessage(
        role="assistant",
        parts=[*AgentMessage.assistant("let me look").parts, *_call("dangling").parts],
    )
    kept = strip_orphaned_tool_messages(
        [_call("ok"), _result("ok"), text_and_call, _result("stray"), CustomMessage(type="x")]
    )
    assert [type(m).__name__ for m in kept] == [
        "AgentMessage",
        "AgentMessage",
        "AgentMessage",
        "CustomMessage",
    ]
    assert kept[2].parts == AgentMessage.assistant("let me look").parts  # type: ignore[union-attr]


def test_the_model_never_sees_a_call_waiting_for_its_result() -> None:
    messages = AgentMessageList()
    messages.add_input([AgentMessage.user("go")])
    messages.add_response([_call("pending")])
    assert [m.role for m in messages.for_llm()] == ["user"]


def test_an_input_message_already_stored_counts_as_input_once_at_its_stored_time() -> None:
    stored = AgentMessage.user("hello", created_at=1_000)
    messages = AgentMessageList()
    messages.add_history([AgentMessage.assistant("earlier", created_at=500), stored])
    (added,) = messages.add_input([stored.model_copy(update={"created_at": 9_999})])
    assert added.created_at == 1_000
    assert [m.id for m in messages.all] == [messages.all[0].id, stored.id]
    assert [m.id for m in messages.turn_delta()] == [stored.id]
    assert messages.serialize().history_ids == [messages.all[0].id]
