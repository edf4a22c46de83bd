"""The default agent's tools: safe arithmetic, notes kept per user, and how a suspension's
payload becomes the question the user sees."""

from __future__ import annotations

import pytest
from service_harness import OWNER, service

from runyard.runtime import PendingSuspend
from runyard.service import Owner, confirmation_payload
from runyard.service.tools import evaluate


@pytest.mark.parametrize(
    ("expression", "value"),
    [("2+3*4", 14), ("(2+3)*4", 20), ("7/2", 3.5), ("7//2", 3), ("-2**3", -8), ("10 % 4", 2)],
)
def test_the_calculator_does_arithmetic(expression: str, value: float) -> None:
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "x + 1",
        "len('abc')",
        "2 ** 100000",
        "1/0",
        "[1, 2]",
        "'a'",
    ],
)
def test_the_calculator_refuses_anything_but_arithmetic(expression: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011  # every refusal is a ValueError with a reason
        evaluate(expression)


async def test_notes_belong_to_their_user_across_threads(sqlite_url: str) -> None:
    bob = Owner("acme", "bob")
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "a1", '/tool save_note {"text": "alice secret"}')
        await svc.settle("a1")
        await svc.runs.confirm(OWNER, await svc.request_id("a1"), {"approved": True})
        await svc.settle("a1")
        await svc.runs.start(OWNER, "a2", "/tool list_notes {}")
        await svc.settle("a2")
        await svc.runs.start(bob, "b1", "/tool list_notes {}")
        await svc.settle("b1", bob)
        alice_sees = [e for _, e in await svc.log("a2") if e.type == "tool-result"]
        bob_sees = [e for _, e in await svc.log("b1", owner=bob) if e.type == "tool-result"]

    assert [n["text"] for n in alice_sees[0].payload.result["notes"]] == ["alice secret"]
    assert bob_sees[0].payload.result == {"notes": []}


def suspension(payload: object) -> PendingSuspend:
    return PendingSuspend("run_1", "call_1", "deploy", {"env": "prod"}, payload, None)


def test_an_approval_gate_asks_a_plain_question() -> None:
    payload = confirmation_payload("cr_1", suspension({"type": "approval", "tool_name": "deploy"}))

    assert payload.model_dump() == {
        "requestId": "cr_1",
        "severity": "warning",
        "message": 'Allow "deploy" to run?',
        "toolCallId": "call_1",
        "toolName": "deploy",
        "args": {"env": "prod"},
    }


def test_rich_fields_are_kept_and_invalid_ones_dropped() -> None:
    payload = confirmation_payload(
        "cr_1",
        suspension(
            {
                "input_type": "plan-review",
                "tasks": [{"id": "t1", "description": "build", "status": "pending"}],
                "severity": "catastrophic",
                "questions": "not a list",
                "message": "Review the plan",
            }
        ),
    )

    wire = payload.model_dump()
    assert wire["inputType"] == "plan-review"
    assert wire["tasks"] == [{"id": "t1", "description": "build", "status": "pending"}]
    assert (wire["severity"], wire["message"]) == ("warning", "Review the plan")
    assert "questions" not in wire


def test_a_text_payload_becomes_the_message() -> None:
    assert confirmation_payload("cr_1", suspension("Proceed?")).message == "Proceed?"
