"""``StructuredOutput``: a run's final answer as data, from a pydantic model or a JSON Schema.

The model is offered one more tool (``OutputSpec``, ``final_result``) and gives its answer by
calling it. The arguments must pass the validator: a pydantic model (``output_type``) makes the
run's ``structured_output`` an instance of it; a JSON Schema (``output_schema``) leaves the object
as the model wrote it, once it fits. Arguments that do not fit are not the run's failure but the
model's to mend: the call is put back in the history with a tool error naming each problem, and
the model is asked again (each retry is one more turn, counted against ``max_iterations``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from runyard.errors import ConfigurationError
from runyard.ids import new_id
from runyard.messages import AgentMessage, ToolCallPart
from runyard.models import ModelTurn, OutputSpec
from runyard.runtime.tool_runner import ToolOutcome
from runyard.tools import JsonSchemaValidator, ModelValidator, Validator

__all__ = ["OutputRetry", "StructuredOutput"]


@dataclass(frozen=True, slots=True)
class OutputRetry:
    """An output that did not fit: the turn's message with its output call put back, and that
    call's error outcome, which asks the model to call the output tool again."""

    message: AgentMessage
    outcome: ToolOutcome


class StructuredOutput:
    """What the run's final answer must be: the output tool and the validator of its arguments."""

    def __init__(self, validator: Validator, description: str | None = None) -> None:
        self.validator = validator
        schema = validator.json_schema
        self.tool = OutputSpec(schema)
        if description or schema.get("description"):
            self.tool = OutputSpec(schema, description=description or schema["description"])

    @classmethod
    def of(
        cls, output_type: type[BaseModel] | None, output_schema: Mapping[str, Any] | None
    ) -> StructuredOutput | None:
        """The structured output an agent asks for (None: a text answer);
        ``ConfigurationError`` for both at once, or a schema that is not an object's."""
        if output_type is not None and output_schema is not None:
            raise ConfigurationError("Give output_type or output_schema, not both")
        if output_type is not None:
            return cls(ModelValidator(output_type, dump=False))
        if output_schema is None:
            return None
        if output_schema.get("type") != "object":
            raise ConfigurationError('output_schema must be an object schema ("type": "object")')
        from jsonschema.exceptions import SchemaError  # loaded only by agents that give a schema

        try:
            return cls(JsonSchemaValidator(dict(output_schema)).checked())
        except SchemaError as exc:
            raise ConfigurationError(f"output_schema is not a valid JSON Schema: {exc}") from exc

    def check(self, turn: ModelTurn) -> Any:
        """The turn's output, validated, or an ``OutputRetry`` when it does not fit. A turn
        without an output (the model answered in text) gives None."""
        if turn.output is None:
            return None
        try:
            return self.validator.validate(turn.output)
        except ValueError as exc:
            return self._retry(turn, turn.output, str(exc))

    def _retry(self, turn: ModelTurn, args: dict[str, Any], problem: str) -> OutputRetry:
        name = self.tool.name
        call = ToolCallPart(tool_call_id=new_id("call"), tool_name=name, args=args)
        message = turn.message.model_copy(update={"parts": [*turn.message.parts, call]})
        error = f"Invalid {name} arguments: {problem}. Call {name} again with arguments that fit."
        return OutputRetry(message, ToolOutcome(call, "error", output=error))
