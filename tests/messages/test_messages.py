from __future__ import annotations

from runyard.messages import (
    AgentMessage,
    CustomMessage,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    any_message_adapter,
    is_llm_message,
)


def test_text_joins_text_parts_and_leaves_out_reasoning() -> None:
    message = AgentMessage(
        role="assistant",
        parts=[ReasoningPart(text="thinking"), TextPart(text="a"), TextPart(text="b")],
    )
    assert message.text == "ab"
    assert message.reasoning == "thinking"


def test_every_message_gets_its_own_id_and_a_millisecond_timestamp() -> None:
    first, second = AgentMessage.user("x"), AgentMessage.user("x")
    assert first.id != second.id
    assert first.id.startswith("msg_")
    assert first.created_at > 1_600_000_000_000


def test_messages_round_trip_through_json_with_their_kind() -> None:
    messages = [
        AgentMessage(
            role="assistant",
            parts=[ToolCallPart(tool_call_id="c1", tool_name="add", args={"a": 1})],
        ),
        AgentMessage(
            role="tool",
            parts=[ToolResultPart(tool_call_id="c1", tool_name="add", result={"sum": 3})],
        ),
        CustomMessage(type="card", data={"title": "t"}),
    ]
    for message in messages:
        blob = any_message_adapter.dump_json(message)
        assert any_message_adapter.validate_json(blob) == message


def test_custom_messages_are_not_for_the_model() -> None:
    assert is_llm_message(AgentMessage.user("hi"))
    assert not is_llm_message(CustomMessage(type="card"))
