"""``AgentMessage`` (what a model may see) and ``CustomMessage`` (UI-only rows it never sees)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from runyard.ids import new_id, now_ms
from runyard.messages.parts import (
    MessagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "AgentMessage",
    "AnyMessage",
    "CustomMessage",
    "Role",
    "any_message_adapter",
    "is_llm_message",
]

Role = Literal["user", "assistant", "tool", "system"]


def _message_id() -> str:
    return new_id("msg")


class AgentMessage(BaseModel):
    """One message of a conversation.

    ``created_at`` is integer milliseconds; the runtime makes it strictly increasing within a
    thread so stores can order by it.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["message"] = "message"
    id: str = Field(default_factory=_message_id)
    role: Role
    parts: list[MessagePart] = Field(default_factory=list)
    created_at: int = Field(default_factory=now_ms)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def user(cls, text: str, **kwargs: Any) -> AgentMessage:
        """A user message holding one text part."""
        return cls(role="user", parts=[TextPart(text=text)], **kwargs)

    @classmethod
    def assistant(cls, text: str, **kwargs: Any) -> AgentMessage:
        """An assistant message holding one text part."""
        return cls(role="assistant", parts=[TextPart(text=text)], **kwargs)

    @property
    def text(self) -> str:
        """The message's text parts joined together (reasoning excluded)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def tool_results(self) -> list[ToolResultPart]:
        return [p for p in self.parts if isinstance(p, ToolResultPart)]


class CustomMessage(BaseModel):
    """A row for the UI only (a card, a notice); stored with the thread, never sent to a model."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["custom"] = "custom"
    id: str = Field(default_factory=_message_id)
    type: str
    data: Any = None
    created_at: int = Field(default_factory=now_ms)


AnyMessage = Annotated[AgentMessage | CustomMessage, Field(discriminator="kind")]

any_message_adapter: TypeAdapter[AgentMessage | CustomMessage] = TypeAdapter(AnyMessage)


def is_llm_message(message: AgentMessage | CustomMessage) -> bool:
    """True for messages a model may see."""
    return isinstance(message, AgentMessage)
