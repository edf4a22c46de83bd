"""Agent.as_tool: an agent called as a tool, with its usage merged into the caller's."""

from __future__ import annotations

import pytest

from runyard.agent import Agent
from runyard.runtime import SubAgentUsage
from runyard.testing import Turn, TurnUsage, call, scripted_model


async def test_a_sub_agent_answers_as_a_tool_and_its_usage_is_merged() -> None:
    billing = Agent(
        "billing",
        scripted_model([Turn(text="You owe 3 EUR.", usage=TurnUsage(7, 3))], model_name="sub"),
        "You answer billing questions.",
    )
    helper = billing.as_tool("Answers billing questions")
    assert helper.name == "billing"
    assert helper.parameters["required"] == ["input"]

    orchestrator = Agent(
        "main",
        scripted_model(
            [
                Turn(
                    tool_calls=call("billing", {"input": "what do I owe?"}, id="b").tool_calls,
                    usage=TurnUsage(10, 2),
                ),
                Turn(text="3 EUR.", usage=TurnUsage(20, 1)),
            ]
        ),
        tools=[helper],
    )
    result = await orchestrator.generate("bill?")

    assert result.text == "3 EUR."
    assert result.tool_calls[0].output == {"result": "You owe 3 EUR."}
    assert result.sub_agent_usage == [
        SubAgentUsage(
            agent="billing", model=billing.model_label, usage=result.sub_agent_usage[0].usage
        )
    ]
    sub = result.sub_agent_usage[0].usage
    assert (sub.input_tokens, sub.output_tokens) == (7, 3)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 3)


async def test_cost_comes_from_the_price_catalog_and_total_cost_adds_the_sub_agents() -> None:
    # gpt-4o is in the offline catalog: 2.50 USD per million input tokens, 10 per million output.
    billing = Agent(
        "billing",
        scripted_model([Turn(text="ok", usage=TurnUsage(1000, 1000))], model_name="gpt-4o"),
    )
    orchestrator = Agent(
        "main",
        scripted_model(
            [
                Turn(
                    tool_calls=call("billing", {"input": "x"}, id="b").tool_calls,
                    usage=TurnUsage(1000, 0),
                ),
                Turn(text="done", usage=TurnUsage(0, 1000)),
            ],
            model_name="gpt-4o",
        ),
        tools=[billing.as_tool("Billing")],
    )
    result = await orchestrator.generate("go")
    assert result.usage.cost == pytest.approx(0.0125)
    assert result.sub_agent_usage[0].usage.cost == pytest.approx(0.0125)
    assert result.total_cost == pytest.approx(0.025)


async def test_an_unknown_price_leaves_the_cost_unknown() -> None:
    result = await Agent("a", scripted_model([Turn(text="ok")])).generate("go")
    assert result.usage.cost is None
    assert result.total_cost is None


async def test_a_failing_sub_agent_is_a_tool_error_for_the_caller() -> None:
    broken = Agent("broken", scripted_model([]))
    orchestrator = Agent(
        "main",
        scripted_model([call("broken", {"input": "x"}, id="b"), Turn(text="it failed")]),
        tools=[broken.as_tool("Breaks")],
    )
    result = await orchestrator.generate("go")
    assert result.text == "it failed"
    tool_message = result.messages[1]
    assert tool_message.tool_results[0].is_error  # type: ignore[union-attr]
    assert "Sub-agent broken failed" in tool_message.tool_results[0].result  # type: ignore[union-attr]
