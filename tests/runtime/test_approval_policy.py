"""``ApprovalPolicy``: the tool layer's approval gate put in front of the calls a policy names."""

from __future__ import annotations

from typing import Any

import pytest

from runyard import (
    Agent,
    ApprovalPolicy,
    ConfigurationError,
    PendingSuspend,
    ResumeDataError,
    Suspend,
)
from runyard.messages import ToolResultPart
from runyard.runtime import GenerateResult
from runyard.testing import ToolCall, Turn, call, scripted_model, text
from runyard.tools import APPROVAL_RESUME, ToolContext, tool

APPROVAL_PAYLOAD = {"type": "approval", "tool_name": "transfer", "args": {"amount": 500}}


def banking(runs: list[str]) -> list[Any]:
    @tool
    def transfer(amount: int) -> str:
        """Move money."""
        runs.append(f"transfer {amount}")
        return "sent"

    @tool
    def balance() -> int:
        """The balance."""
        runs.append("balance")
        return 1000

    return [transfer, balance]


def tool_result(result: GenerateResult, call_id: str) -> ToolResultPart:
    return next(
        part
        for message in result.messages
        for part in message.parts
        if isinstance(part, ToolResultPart) and part.tool_call_id == call_id
    )


def over_100(args: dict[str, Any]) -> bool:
    return bool(args["amount"] > 100)


async def test_a_matching_call_suspends_with_the_usual_approval_and_runs_once_approved() -> None:
    runs: list[str] = []
    model = scripted_model([call("transfer", {"amount": 500}, id="t"), text("moved")])
    policy = ApprovalPolicy("trans*", when=over_100)
    agent = Agent("bank", model, tools=banking(runs), middleware=[policy])

    suspended = await agent.generate("pay 500")

    assert suspended.pending_suspend == [
        PendingSuspend(
            run_id=suspended.run_id,
            tool_call_id="t",
            tool_name="transfer",
            args={"amount": 500},
            payload=APPROVAL_PAYLOAD,
            resume_schema=APPROVAL_RESUME.json_schema,
        )
    ]
    assert runs == []
    resumed = await agent.approve("generate", run_id=suspended.run_id, tool_call_id="t")
    assert resumed.text == "moved"
    assert runs == ["transfer 500"]


async def test_a_denied_call_never_runs_and_the_model_reads_that_it_was_denied() -> None:
    runs: list[str] = []
    model = scripted_model([call("transfer", {"amount": 500}, id="t"), text("ok")])
    agent = Agent("bank", model, tools=banking(runs), middleware=[ApprovalPolicy("transfer")])

    suspended = await agent.generate("pay")
    resumed = await agent.deny(
        "generate", run_id=suspended.run_id, tool_call_id="t", reason="too much"
    )

    assert runs == []
    denied = tool_result(resumed, "t")
    assert denied.result == 'Tool "transfer" was denied by the user: too much'
    assert denied.is_error


async def test_calls_the_condition_or_the_name_does_not_cover_run_at_once() -> None:
    runs: list[str] = []
    calls = [ToolCall("transfer", {"amount": 50}, id="t"), ToolCall("balance", {}, id="b")]
    model = scripted_model([Turn(tool_calls=calls), text("done")])
    policy = ApprovalPolicy(tool_regex="^transfer$", when=over_100)
    agent = Agent("bank", model, tools=banking(runs), middleware=[policy])

    result = await agent.generate("pay 50")

    assert result.text == "done"
    assert runs == ["transfer 50", "balance"]


async def test_an_answer_that_is_no_approval_is_refused_before_the_run_goes_on() -> None:
    runs: list[str] = []
    model = scripted_model([call("transfer", {"amount": 500}, id="t")])
    agent = Agent("bank", model, tools=banking(runs), middleware=[ApprovalPolicy("*")])
    suspended = await agent.generate("pay")

    with pytest.raises(ResumeDataError, match="Invalid resume payload"):
        await agent.resume(
            "generate", {"approved": "yes"}, run_id=suspended.run_id, tool_call_id="t"
        )
    assert runs == []


async def test_a_tool_answering_approvals_itself_is_asked_once() -> None:
    runs: list[str] = []

    @tool(resume_schema=APPROVAL_RESUME.json_schema)
    def fetch(url: str, ctx: ToolContext) -> Any:
        """Fetch a URL; other hosts need approval."""
        if ctx.resume_data is None:
            return Suspend({"message": f"May I reach {url}?"})
        runs.append(f"fetch {url}")
        return "page"

    model = scripted_model([call("fetch", {"url": "http://x"}, id="f"), text("read it")])
    agent = Agent("web", model, tools=[fetch], middleware=[ApprovalPolicy("fetch")])
    suspended = await agent.generate("read x")
    assert suspended.pending_suspend[0].payload["type"] == "approval"

    resumed = await agent.approve("generate", run_id=suspended.run_id, tool_call_id="f")

    assert resumed.text == "read it"
    assert runs == ["fetch http://x"]


async def test_a_tool_with_questions_of_its_own_is_refused_not_run_unasked() -> None:
    @tool(resume_schema={"type": "object", "properties": {"answer": {"type": "string"}}})
    def ask(question: str, ctx: ToolContext) -> Any:
        """Ask the user."""
        return Suspend({"message": question})

    model = scripted_model([call("ask", {"question": "?"}, id="a"), text("ok")])
    agent = Agent("a", model, tools=[ask], middleware=[ApprovalPolicy("*")])

    result = await agent.generate("go")

    assert result.text == "ok"
    assert "asks its own questions" in tool_result(result, "a").result


def test_the_policy_names_tools_one_way() -> None:
    with pytest.raises(ConfigurationError, match="exactly one of tool or tool_regex"):
        ApprovalPolicy()
    with pytest.raises(ConfigurationError, match="does not compile"):
        ApprovalPolicy(tool_regex="(")
