"""Structured output from a JSON Schema (``output_schema``) or a pydantic model (``output_type``):
the model answers through the output tool; an answer that does not fit is sent back to it."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import messages as pai

from runyard.agent import Agent
from runyard.errors import ConfigurationError, MaxIterationsError
from runyard.messages import AgentMessage, ToolCallPart, ToolResultPart
from runyard.runtime import FinishChunk, RunStatus
from runyard.testing import Turn, scripted_model

TOTAL = {
    "type": "object",
    "description": "The total of the expenses.",
    "properties": {"total": {"type": "number"}, "currency": {"type": "string"}},
    "required": ["total"],
    "additionalProperties": False,
}


class Total(BaseModel):
    total: float


def _output_returns(request: pai.ModelMessage) -> list[tuple[str, Any, str]]:
    assert isinstance(request, pai.ModelRequest)
    return [
        (p.tool_name, p.content, p.outcome)
        for p in request.parts
        if isinstance(p, pai.ToolReturnPart)
    ]


async def test_an_output_schema_offers_an_output_tool_and_the_result_carries_the_object() -> None:
    model = scripted_model([Turn(output={"total": 12.5, "currency": "EUR"})])
    agent = Agent("books", model, output_schema=TOTAL)

    result = await agent.generate("add it up")

    assert result.structured_output == {"total": 12.5, "currency": "EUR"}
    assert (result.finish_reason, result.error) == ("stop", None)
    assert len(model.requests) == 1
    assert agent._spec.output is not None
    assert agent._spec.output.tool.parameters == TOTAL
    assert agent._spec.output.tool.description == "The total of the expenses."


async def test_the_stream_ends_with_the_object() -> None:
    model = scripted_model([Turn(text="Here it is.", output={"total": 3})])
    chunks = [c async for c in await Agent("books", model, output_schema=TOTAL).stream("sum")]
    finish = chunks[-1]
    assert isinstance(finish, FinishChunk)
    assert (finish.status, finish.structured_output) == (RunStatus.SUCCESS, {"total": 3})


async def test_an_object_that_does_not_fit_goes_back_to_the_model_which_mends_it() -> None:
    model = scripted_model(
        [Turn(output={"total": "lots", "tip": 1}), Turn(output={"total": 40, "currency": "NOK"})]
    )

    result = await Agent("books", model, output_schema=TOTAL).generate("sum")

    assert result.structured_output == {"total": 40, "currency": "NOK"}
    ((name, content, outcome),) = _output_returns(model.requests[1][-1])
    assert (name, outcome) == ("final_result", "failed")
    assert content == (
        "Invalid final_result arguments: input: Additional properties are not allowed ('tip' was "
        "unexpected); total: 'lots' is not of type 'number'. Call final_result again with "
        "arguments that fit."
    )
    retried, answer = result.messages[0], result.messages[1]
    assert isinstance(retried, AgentMessage)
    assert isinstance(answer, AgentMessage)
    (call,) = [p for p in retried.parts if isinstance(p, ToolCallPart)]
    assert (call.tool_name, call.args) == ("final_result", {"total": "lots", "tip": 1})
    assert answer.parts == [
        ToolResultPart(
            tool_call_id=call.tool_call_id, tool_name="final_result", result=content, is_error=True
        )
    ]


async def test_an_output_type_is_retried_the_same_way() -> None:
    model = scripted_model([Turn(output={"total": "n/a"}), Turn(output={"total": 7})])
    result = await Agent("books", model, output_type=Total).generate("sum")
    assert result.structured_output == Total(total=7)
    assert "total: Input should be a valid number" in _output_returns(model.requests[1][-1])[0][1]


async def test_a_model_that_never_fits_runs_out_of_iterations() -> None:
    model = scripted_model([Turn(output={"total": "?"}) for _ in range(2)])
    result = await Agent("books", model, output_schema=TOTAL, max_iterations=2).generate("sum")
    assert isinstance(result.error, MaxIterationsError)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"output_schema": {"type": "array"}}, "output_schema must be an object schema"),
        (
            {"output_schema": {"type": "object", "properties": {"x": {"type": "nope"}}}},
            "output_schema is not a valid JSON Schema",
        ),
        ({"output_schema": TOTAL, "output_type": Total}, "output_type or output_schema, not both"),
    ],
)
def test_an_output_schema_the_runtime_cannot_use_is_refused(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Agent("x", scripted_model([]), **options)
