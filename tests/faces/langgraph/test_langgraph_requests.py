"""``RunCreate`` and ``resume_answers``: what a LangGraph run request says, read as runyard reads
it — each way LangChain writes the last human message, each resume value and the answer it
gives, and every refusal naming its field."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError

from runyard.faces.langgraph.resume import resume_answers
from runyard.faces.langgraph.run_request import RunCreate
from runyard.messages import ImagePart, TextPart
from runyard.protocol import ConfirmationRequestPayload


def request(**fields: Any) -> RunCreate:
    return RunCreate.model_validate({"assistant_id": "assistant", **fields})


def refused_field(call: Any) -> str:
    with pytest.raises(RequestValidationError) as raised:
        call()
    (error,) = raised.value.errors()
    return ".".join(str(p) for p in error["loc"][1:])


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": "hi"},
        {"type": "human", "content": "hi"},
        ["user", "hi"],
        ("human", "hi"),
        "hi",
        {"role": "user", "content": [{"type": "text", "text": "h"}, "i"]},
    ],
)
def test_every_way_langchain_writes_a_human_message_is_read(message: Any) -> None:
    given = request(input={"messages": [{"role": "ai", "content": "earlier"}, message]})

    assert given.user_input().text == "hi"


def test_an_image_block_is_content_beside_the_text() -> None:
    blocks = [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
    ]
    given = request(input={"messages": [{"role": "user", "content": blocks, "id": "m-1"}]})

    read = given.user_input()
    assert read.text == ""
    assert read.content == [TextPart(text="look"), ImagePart(url="https://example.com/a.png")]
    assert read.field == "body.input.messages.0.content"
    assert given.message_id() == "m-1"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "input.messages"),
        ({"input": {"messages": []}}, "input.messages"),
        ({"input": {"messages": [{"role": "ai", "content": "x"}]}}, "input.messages.0"),
        ({"input": {"messages": [{"content": "x"}]}}, "input.messages.0.role"),
        ({"input": {"messages": [42]}}, "input.messages.0"),
        ({"input": {"messages": [{"role": "user", "content": 7}]}}, "input.messages.0.content"),
        ({"input": {"messages": [{"role": "user", "content": "  "}]}}, "input.messages.0.content"),
        (
            {"input": {"messages": [{"role": "user", "content": [{"type": "tool_call"}]}]}},
            "input.messages.0.content.0",
        ),
        (
            {"input": {"messages": [{"role": "user", "content": [3]}]}},
            "input.messages.0.content.0",
        ),
        ({"command": {"update": {}}}, "command.resume"),
    ],
)
def test_a_message_runyard_cannot_start_from_is_refused_naming_it(
    fields: dict[str, Any], field: str
) -> None:
    assert refused_field(request(**fields).user_input) == field


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"stream_mode": ["values", "tasks"]}, "stream_mode"),
        ({"stream_mode": "everything"}, "stream_mode"),
        ({"after_seconds": 5}, "after_seconds"),
        ({"checkpoint": {"checkpoint_id": "1"}}, "checkpoint"),
        ({"command": {"resume": True, "update": {"a": 1}}}, "command.update"),
        ({"command": {"resume": True}, "input": {"messages": []}}, "input"),
    ],
)
def test_what_runyard_cannot_honour_is_refused_naming_it(
    fields: dict[str, Any], field: str
) -> None:
    assert refused_field(request(**fields).refuse_unsupported) == field


def question(request_id: str, input_type: str | None = None, tool: str = "save_note") -> Any:
    payload: dict[str, Any] = {
        "requestId": request_id,
        "severity": "warning",
        "message": "Allow?",
        "toolCallId": f"call-{request_id}",
        "toolName": tool,
        "args": {"text": "milk"},
    }
    if input_type is not None:
        payload["inputType"] = input_type
    return ConfirmationRequestPayload.model_validate(payload)


APPROVAL = [question("cr1")]


@pytest.mark.parametrize(
    ("resume", "answer"),
    [
        (True, {"approved": True}),
        ("reject", {"approved": False}),
        ({"type": "reject", "message": "no"}, {"approved": False, "reason": "no"}),
        ({"type": "reject"}, {"approved": False}),
        ({"decisions": [{"type": "approve"}]}, {"approved": True}),
        (
            {"type": "edit", "edited_action": {"name": "save_note", "args": {"text": "oat"}}},
            {"approved": True, "args": {"text": "oat"}},
        ),
        ({"approved": False, "reason": "later"}, {"approved": False, "reason": "later"}),
        ({"cr1": "approve"}, {"approved": True}),
    ],
)
def test_each_resume_value_is_a_runyard_answer(resume: Any, answer: dict[str, Any]) -> None:
    (given,) = resume_answers(resume, APPROVAL)

    assert (given.request_id, given.answer) == ("cr1", answer)


def test_a_text_question_takes_a_string_or_a_respond_decision() -> None:
    asked = [question("cr2", "text")]

    (said,) = resume_answers("Ann", asked)
    (responded,) = resume_answers({"type": "respond", "message": "Bo"}, asked)

    assert said.answer == {"approved": True, "userInput": "Ann"}
    assert responded.answer == {"approved": True, "userInput": "Bo"}


def test_a_graphs_own_question_takes_any_value() -> None:
    asked = [question("cr3", "text", tool="interrupt")]

    (valued,) = resume_answers({"name": "Ann"}, asked)

    assert valued.answer == {"approved": True, "value": {"name": "Ann"}}


def test_several_interrupts_take_a_map_or_one_decision_each() -> None:
    two = [question("cr1"), question("cr2")]

    by_id = resume_answers({"cr2": False, "cr1": True}, two)
    in_order = resume_answers({"decisions": [{"type": "approve"}, {"type": "reject"}]}, two)

    assert [(a.request_id, a.answer) for a in by_id] == [
        ("cr1", {"approved": True}),
        ("cr2", {"approved": False}),
    ]
    assert [a.answer for a in in_order] == [{"approved": True}, {"approved": False}]
    assert refused_field(lambda: resume_answers(True, two)) == "command.resume"


@pytest.mark.parametrize(
    ("resume", "field"),
    [
        ("maybe", "command.resume"),
        (3, "command.resume"),
        ({"type": "approve", "message": 1}, "command.resume.message"),
        ({"type": "wave"}, "command.resume.type"),
        ({"type": "edit"}, "command.resume.edited_action"),
        (
            {"type": "edit", "edited_action": {"name": "rm", "args": {}}},
            "command.resume.edited_action.name",
        ),
        ({"decisions": []}, "command.resume.decisions"),
        ({"type": "respond", "message": "do it later"}, "command.resume"),
    ],
)
def test_a_resume_that_fits_no_answer_is_refused_naming_it(resume: Any, field: str) -> None:
    assert refused_field(lambda: resume_answers(resume, APPROVAL)) == field


def test_resuming_with_nothing_waiting_is_refused() -> None:
    assert refused_field(lambda: resume_answers(True, [])) == "command.resume"
