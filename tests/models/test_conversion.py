"""runyard messages <-> pydantic-ai messages: lossless both ways, JSON in between included."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic_ai import messages as pai

from runyard.messages import (
    AgentMessage,
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    VideoPart,
)
from runyard.models import from_model_messages, from_model_response, to_model_messages

_PNG = base64.b64encode(b"\x89PNG fake image bytes").decode()

CONVERSATION = [
    AgentMessage(role="system", parts=[TextPart(text="Be brief."), TextPart(text="Be kind.")]),
    AgentMessage.user("What is 2+3*4?", metadata={"source": "web"}),
    AgentMessage(
        role="user",
        parts=[
            TextPart(text="Look at these:"),
            ImagePart(mime_type="image/png", base64=_PNG, filename="chart.png"),
            ImagePart(mime_type="image/png", base64=_PNG),
            ImagePart(mime_type="image/webp", url="https://example.com/a.webp"),
            FilePart(mime_type="application/pdf", url="https://example.com/doc", filename="d.pdf"),
            FilePart(mime_type="application/pdf", base64=_PNG),
            AudioPart(mime_type="audio/mpeg", url="https://example.com/a.mp3"),
            VideoPart(mime_type="video/mp4", url="https://example.com/v.mp4"),
        ],
    ),
    AgentMessage(
        role="assistant",
        parts=[
            ReasoningPart(text="Use the calculator.", signature="sig-1", provider_name="anthropic"),
            TextPart(text="Let me compute."),
            ToolCallPart(
                tool_call_id="call_1", tool_name="calculator", args={"expression": "2+3*4"}
            ),
            ToolCallPart(tool_call_id="call_2", tool_name="save_note", args={"text": "x"}),
            ImagePart(mime_type="image/png", base64=_PNG),
        ],
        metadata={"provider": {"model_name": "gpt-4o", "parts": {"1": {"id": "msg_1"}}}},
    ),
    AgentMessage(
        role="tool",
        parts=[
            ToolResultPart(tool_call_id="call_1", tool_name="calculator", result={"result": 14}),
            ToolResultPart(
                tool_call_id="call_2", tool_name="save_note", result="denied", is_error=True
            ),
        ],
    ),
    AgentMessage(role="user", parts=[]),
    AgentMessage.assistant("14."),
]


def test_every_part_type_survives_the_round_trip() -> None:
    assert from_model_messages(to_model_messages(CONVERSATION)) == CONVERSATION


def test_the_round_trip_survives_pydantic_ai_json_in_between() -> None:
    blob = pai.ModelMessagesTypeAdapter.dump_json(to_model_messages(CONVERSATION))
    assert from_model_messages(pai.ModelMessagesTypeAdapter.validate_json(blob)) == CONVERSATION


def test_roles_map_to_requests_and_responses() -> None:
    converted = to_model_messages(CONVERSATION)
    kinds = [type(m).__name__ for m in converted]
    assert kinds == [
        "ModelRequest",
        "ModelRequest",
        "ModelRequest",
        "ModelResponse",
        "ModelRequest",
        "ModelRequest",
        "ModelResponse",
    ]
    system, user = converted[0], converted[1]
    assert isinstance(system, pai.ModelRequest)
    assert isinstance(user, pai.ModelRequest)
    assert [type(p) for p in system.parts] == [pai.SystemPromptPart, pai.SystemPromptPart]
    assert user.parts[0] == pai.UserPromptPart("What is 2+3*4?", timestamp=user.parts[0].timestamp)


def test_user_files_become_the_matching_pydantic_ai_kinds() -> None:
    request = to_model_messages(CONVERSATION)[2]
    assert isinstance(request, pai.ModelRequest)
    prompt = request.parts[0]
    assert isinstance(prompt, pai.UserPromptPart)
    kinds = [type(item).__name__ for item in prompt.content]
    assert kinds == [
        "str",
        "BinaryContent",
        "BinaryContent",
        "ImageUrl",
        "DocumentUrl",
        "BinaryContent",
        "AudioUrl",
        "VideoUrl",
    ]


def test_a_failed_tool_result_reaches_the_model_as_a_failed_return() -> None:
    request = to_model_messages(CONVERSATION)[4]
    assert isinstance(request, pai.ModelRequest)
    outcomes = [
        (p.tool_name, p.outcome) for p in request.parts if isinstance(p, pai.ToolReturnPart)
    ]
    assert outcomes == [("calculator", "success"), ("save_note", "failed")]


def test_reasoning_keeps_its_signature_and_provider_part_ids_go_back() -> None:
    response = to_model_messages(CONVERSATION)[3]
    assert isinstance(response, pai.ModelResponse)
    thinking, text = response.parts[0], response.parts[1]
    assert isinstance(thinking, pai.ThinkingPart)
    assert thinking.signature == "sig-1"
    assert isinstance(text, pai.TextPart)
    assert text.id == "msg_1"
    assert response.model_name == "gpt-4o"


def test_instructions_go_on_the_last_request() -> None:
    converted = to_model_messages(CONVERSATION, instructions="You are helpful.")
    requests = [m for m in converted if isinstance(m, pai.ModelRequest)]
    assert [r.instructions for r in requests] == [None, None, None, None, "You are helpful."]
    assert from_model_messages(converted) == CONVERSATION


def test_foreign_requests_split_into_one_message_per_role() -> None:
    request = pai.ModelRequest(
        parts=[
            pai.SystemPromptPart("sys"),
            pai.UserPromptPart("hi"),
            pai.ToolReturnPart("calculator", {"result": 1}, "c1"),
            pai.ToolReturnPart("other", "boom", "c2", outcome="failed"),
        ]
    )
    messages = from_model_messages([request])
    assert [(m.role, m.parts) for m in messages] == [
        ("system", [TextPart(text="sys")]),
        ("user", [TextPart(text="hi")]),
        (
            "tool",
            [
                ToolResultPart(tool_call_id="c1", tool_name="calculator", result={"result": 1}),
                ToolResultPart(tool_call_id="c2", tool_name="other", result="boom", is_error=True),
            ],
        ),
    ]
    assert len({m.id for m in messages}) == 3


def test_a_response_keeps_provider_details_in_metadata() -> None:
    response = pai.ModelResponse(
        parts=[
            pai.ThinkingPart("hmm", id="rs_1", signature="enc", provider_name="openai"),
            pai.TextPart("hi", id="msg_1"),
        ],
        model_name="gpt-5",
        provider_name="openai",
        provider_response_id="resp_1",
    )
    message = from_model_response(response)
    assert message.parts == [
        ReasoningPart(text="hmm", signature="enc", provider_name="openai"),
        TextPart(text="hi"),
    ]
    assert message.metadata["provider"] == {
        "model_name": "gpt-5",
        "provider_name": "openai",
        "provider_response_id": "resp_1",
        "parts": {"0": {"id": "rs_1"}, "1": {"id": "msg_1"}},
    }
    back = to_model_messages([message])[0]
    assert isinstance(back, pai.ModelResponse)
    assert [getattr(p, "id", None) for p in back.parts] == ["rs_1", "msg_1"]
    assert back.provider_response_id == "resp_1"


@pytest.mark.parametrize(
    ("raw", "args"),
    [('{"a": 1}', {"a": 1}), ("", {}), (None, {}), ({"b": 2}, {"b": 2})],
)
def test_tool_call_args_are_parsed_to_a_dict(raw: Any, args: dict[str, Any]) -> None:
    message = from_model_response(pai.ModelResponse(parts=[pai.ToolCallPart("t", raw, "c1")]))
    assert message.tool_calls[0].args == args
    assert "invalid_tool_args" not in message.metadata


@pytest.mark.parametrize("raw", ['{"a": 1', "[1, 2]", "not json"])
def test_unparseable_tool_args_are_recorded_for_an_error_reply(raw: str) -> None:
    message = from_model_response(pai.ModelResponse(parts=[pai.ToolCallPart("t", raw, "c1")]))
    assert message.tool_calls[0].args == {}
    assert message.metadata["invalid_tool_args"] == {"c1": raw}
    assert from_model_messages(to_model_messages([message])) == [message]


def test_a_response_without_runyard_identity_takes_its_time_from_the_timestamp() -> None:
    response = pai.ModelResponse(parts=[pai.TextPart("hi")])
    message = from_model_response(response)
    assert message.created_at == int(response.timestamp.timestamp() * 1000)


@pytest.mark.parametrize(
    "message",
    [
        AgentMessage(role="user", parts=[ToolCallPart(tool_call_id="c", tool_name="t")]),
        AgentMessage(role="system", parts=[ImagePart(mime_type="image/png", base64=_PNG)]),
        AgentMessage(role="tool", parts=[TextPart(text="x")]),
        AgentMessage(role="assistant", parts=[ToolResultPart(tool_call_id="c", tool_name="t")]),
    ],
)
def test_parts_a_role_cannot_hold_are_rejected(message: AgentMessage) -> None:
    with pytest.raises(ValueError, match="cannot hold"):
        to_model_messages([message])


def test_a_files_legacy_field_names_still_load() -> None:
    stored = {"type": "file", "media_type": "image/png", "data": _PNG, "filename": "a.png"}
    assert FilePart.model_validate(stored) == FilePart(
        mime_type="image/png", base64=_PNG, filename="a.png"
    )


def test_data_sources_and_linked_media_of_an_answer_are_not_sent_back_to_the_model() -> None:
    answer = AgentMessage(
        role="assistant",
        parts=[
            TextPart(text="Here."),
            JsonPart(data={"rows": 3}),
            CitationPart(url="https://example.com", title="Example"),
            ImagePart(url="https://example.com/a.png"),
            ImagePart(mime_type="image/png", base64=_PNG),
        ],
        metadata={"provider": {"parts": {"1": {"id": "file_1"}}}},
    )
    (response,) = to_model_messages([answer])
    assert isinstance(response, pai.ModelResponse)
    assert [type(p) for p in response.parts] == [pai.TextPart, pai.FilePart]
    assert response.parts[1].id == "file_1"


def test_a_user_messages_data_and_sources_reach_the_model_as_text() -> None:
    message = AgentMessage(
        role="user",
        parts=[
            JsonPart(data={"a": 1}),
            CitationPart(url="https://example.com", title="Ex", cited_text="quoted"),
        ],
    )
    (request,) = to_model_messages([message])
    assert isinstance(request, pai.ModelRequest)
    assert request.parts[0].content == ['{"a": 1}', "[source: Ex https://example.com] quoted"]


def test_reused_conversions_are_the_same_messages_and_follow_changes() -> None:
    reuse: dict[str, Any] = {}
    first = to_model_messages(CONVERSATION, instructions="Be exact.", reuse=reuse)
    assert first == to_model_messages(CONVERSATION, instructions="Be exact.")
    again = to_model_messages(CONVERSATION, instructions="Be exact.", reuse=reuse)
    assert all(a is b for a, b in zip(first, again, strict=True))
    # A new object under a known id, and other instructions, are converted afresh.
    edited = [*CONVERSATION[:-1], CONVERSATION[-1].model_copy(update={"metadata": {"x": 1}})]
    later = to_model_messages(edited, instructions="Be short.", reuse=reuse)
    assert later == to_model_messages(edited, instructions="Be short.")
    assert later[-1] is not first[-1]
    assert later[0] is first[0]
