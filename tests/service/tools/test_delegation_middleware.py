"""A sub-agent ``delegate`` starts runs under its orchestrator's middleware."""

from __future__ import annotations

from runyard import Agent, ApprovalPolicy, PiiRedaction
from runyard.service.tools.delegation import Delegation
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


@tool
def transfer(amount: int) -> str:
    """Move money."""
    return "sent"


async def test_the_sub_agent_answers_redacted_and_asks_before_a_covered_call() -> None:
    model = scripted_model([text("Mail frank@example.com"), call("transfer", {"amount": 5})])
    orchestrator = Agent(
        "boss",
        model,
        tools=[transfer],
        middleware=[PiiRedaction(), ApprovalPolicy("transfer")],
    )

    sub = Delegation.build(orchestrator, "clerk", "Help.", ["transfer"], "agent-002").agent
    answered = await sub.generate("contact?")
    asked = await sub.generate("pay 5")

    assert sub.middleware == orchestrator.middleware
    assert answered.text == "Mail [EMAIL]"
    assert [p.payload["type"] for p in asked.pending_suspend] == ["approval"]
