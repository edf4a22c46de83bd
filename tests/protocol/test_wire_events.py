"""The wire events: the seed's examples round-trip exactly, Python speaks snake_case, bad input fails."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from protocol_seed_examples import RICH_CONFIRMATION, SEED_EXAMPLES
from pydantic import ValidationError

from runyard.protocol import (
    ConfirmationRequestEvent,
    RunFinishEvent,
    RunFinishPayload,
    RunUsage,
    TextDeltaEvent,
    TextDeltaPayload,
    ToolCallEvent,
    ToolCallPayload,
    ToolResultEvent,
    ToolResultPayload,
    WireEvent,
    event_to_dict,
    event_to_json,
    parse_event,
)


@pytest.mark.parametrize("text", SEED_EXAMPLES)
def test_every_seed_example_round_trips_to_the_same_json(text: str) -> None:
    event = parse_event(text)

    assert json.loads(event_to_json(event)) == json.loads(text)


def test_the_union_has_the_seed_s_fifteen_types_run_resumed_and_content() -> None:
    (union, _discriminator) = get_args(WireEvent)
    types = {member.model_fields["type"].default for member in get_args(union)}

    assert types == {
        "run-start",
        "run-finish",
        "run-resumed",
        "text-delta",
        "content",
        "reasoning-delta",
        "tool-call",
        "tool-result",
        "tool-error",
        "agent-spawned",
        "agent-completed",
        "confirmation-request",
        "tasks-update",
        "status",
        "error",
        "thread-title-updated",
        "filesystem-request",
    }


def test_python_constructs_with_snake_case_and_the_wire_gets_compact_camel_case() -> None:
    event = ToolCallEvent(
        run_id="r1",
        agent_id="a1",
        payload=ToolCallPayload(tool_call_id="tc1", tool_name="calculator", args={"x": 1}),
    )

    assert event_to_json(event) == (
        '{"type":"tool-call","runId":"r1","agentId":"a1",'
        '"payload":{"toolCallId":"tc1","toolName":"calculator","args":{"x":1}}}'
    )


def test_unset_optional_fields_are_left_out_but_a_null_result_is_kept() -> None:
    finish = RunFinishEvent(run_id="r", agent_id="a", payload=RunFinishPayload(status="completed"))
    null_result = ToolResultEvent(
        run_id="r", agent_id="a", payload=ToolResultPayload(tool_call_id="t", result=None)
    )

    assert event_to_dict(finish)["payload"] == {"status": "completed"}
    assert event_to_dict(null_result)["payload"] == {"toolCallId": "t", "result": None}


def test_nulls_inside_args_and_results_survive() -> None:
    event = parse_event(
        {
            "type": "tool-result",
            "runId": "r",
            "agentId": "a",
            "payload": {"toolCallId": "t", "result": {"a": None, "b": [None, 1]}},
        }
    )

    assert event_to_dict(event)["payload"]["result"] == {"a": None, "b": [None, 1]}


def test_the_rich_confirmation_fields_round_trip() -> None:
    event = parse_event(RICH_CONFIRMATION)

    assert isinstance(event, ConfirmationRequestEvent)
    assert event.payload.domain_access is not None
    assert event.payload.domain_access.host == "api.example.com"
    assert event_to_dict(event) == RICH_CONFIRMATION


def test_a_confirmation_without_the_tool_call_is_its_question() -> None:
    event = parse_event(RICH_CONFIRMATION)
    assert isinstance(event, ConfirmationRequestEvent)

    question = event.payload.confirmation().model_dump()

    expected = {
        k: v
        for k, v in RICH_CONFIRMATION["payload"].items()
        if k not in {"toolCallId", "toolName", "args"}
    }
    assert question == expected


def test_parse_accepts_a_dict_text_or_bytes_and_snake_case_keys() -> None:
    wire = '{"type":"text-delta","runId":"r","agentId":"a","payload":{"text":"hi"}}'
    expected = TextDeltaEvent(run_id="r", agent_id="a", payload=TextDeltaPayload(text="hi"))

    assert parse_event(wire) == expected
    assert parse_event(wire.encode()) == expected
    assert parse_event(json.loads(wire)) == expected
    snake = {"type": "text-delta", "run_id": "r", "agent_id": "a", "payload": {"text": "hi"}}
    assert parse_event(snake) == expected


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"type": "no-such-type", "runId": "r", "agentId": "a", "payload": {}}, "no-such-type"),
        ({"type": "text-delta", "runId": "r", "agentId": "a", "payload": {}}, "payload.text"),
        ({"type": "text-delta", "agentId": "a", "payload": {"text": ""}}, "runId"),
        (
            {"type": "text-delta", "runId": "r", "agentId": "a", "payload": {"text": "", "x": 1}},
            "payload.x",
        ),
        (
            {"type": "run-finish", "runId": "r", "agentId": "a", "payload": {"status": "done"}},
            "status",
        ),
    ],
)
def test_malformed_events_are_rejected_naming_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        parse_event(data)

    assert field in str(raised.value)


def test_events_are_immutable_facts() -> None:
    event = TextDeltaEvent(run_id="r", agent_id="a", payload=TextDeltaPayload(text="hi"))

    with pytest.raises(ValidationError):
        event.run_id = "other"  # type: ignore[misc]


def test_run_finish_carries_an_optional_usage_whose_unknown_cost_is_left_out() -> None:
    priced = '{"type":"run-finish","runId":"r1","agentId":"a1","payload":{"status":"completed","usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5,"cost":0.25}}}'
    unpriced = RunFinishEvent(
        run_id="r1",
        agent_id="a1",
        payload=RunFinishPayload(
            status="error", usage=RunUsage(input_tokens=1, output_tokens=0, total_tokens=1)
        ),
    )

    assert event_to_json(parse_event(priced)) == priced
    assert json.loads(event_to_json(unpriced))["payload"] == {
        "status": "error",
        "usage": {"inputTokens": 1, "outputTokens": 0, "totalTokens": 1},
    }
    with pytest.raises(ValidationError, match=r"run-finish\.payload\.usage\.totalTokens"):
        parse_event(priced.replace(',"totalTokens":5', ""))


def test_a_content_event_carries_typed_blocks_with_langchain_field_names() -> None:
    text = (
        '{"type":"content","runId":"run_1","agentId":"agent-001","payload":{"blocks":['
        '{"type":"image","mime_type":"image/png","base64":"iVBORw=="},'
        '{"type":"file","mime_type":"application/pdf","file_id":"file_1","filename":"r.pdf"},'
        '{"type":"json","data":{"rows":2}},'
        '{"type":"citation","url":"https://example.com","title":"Ex"}'
        '],"messageId":"msg_1"}}'
    )
    event = parse_event(text)

    assert json.loads(event_to_json(event)) == json.loads(text)
