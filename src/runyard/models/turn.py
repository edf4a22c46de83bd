"""What one model call yields: deltas while it streams, then one ``ModelTurn`` when it is done."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from runyard.messages import AgentMessage
from runyard.models.usage import Usage

__all__ = [
    "FinishReason",
    "ModelDelta",
    "ModelTurn",
    "ReasoningDelta",
    "TextDelta",
    "ToolCallDelta",
]

FinishReason = Literal["stop", "length", "content-filter", "tool-calls", "error", "other"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the answer's text, as it arrives."""

    type: ClassVar[Literal["text-delta"]] = "text-delta"
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's visible reasoning, as it arrives."""

    type: ClassVar[Literal["reasoning-delta"]] = "reasoning-delta"
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call: the first one names the call, later ones extend its JSON arguments."""

    type: ClassVar[Literal["tool-call-delta"]] = "tool-call-delta"
    tool_call_id: str | None
    tool_name: str | None
    args_delta: str | None


ModelDelta = TextDelta | ReasoningDelta | ToolCallDelta


@dataclass(slots=True)
class ModelTurn:
    """One finished model call.

    ``message`` is the assistant message in the model's part order, without the output-tool call;
    ``output`` holds that call's arguments when structured output was asked for and given.
    """

    message: AgentMessage
    usage: Usage
    finish_reason: FinishReason
    output: dict[str, Any] | None
    model_name: str
