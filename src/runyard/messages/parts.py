"""The parts a message is made of, one pydantic model per kind, discriminated on ``type``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "FilePart",
    "MessagePart",
    "ReasoningPart",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextPart(_Part):
    """Plain text written by the user or the model."""

    type: Literal["text"] = "text"
    text: str


class ReasoningPart(_Part):
    """The model's visible reasoning; ``signature`` is kept so providers can verify it on replay."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    signature: str | None = None
    provider_name: str | None = None


class ToolCallPart(_Part):
    """A call the model asked for; ``args`` are already parsed into a JSON object."""

    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResultPart(_Part):
    """What a tool call produced, as the model sees it; ``is_error`` marks a failed call."""

    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False


class FilePart(_Part):
    """A file or image, inline as base64 ``data`` or by ``url``."""

    type: Literal["file"] = "file"
    media_type: str
    data: str | None = None
    url: str | None = None
    filename: str | None = None


MessagePart = Annotated[
    TextPart | ReasoningPart | ToolCallPart | ToolResultPart | FilePart,
    Field(discriminator="type"),
]
