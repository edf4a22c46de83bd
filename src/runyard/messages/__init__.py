"""runyard's own message types: the one vocabulary every layer speaks.

Provider formats are mapped to and from these at one edge (``runyard.models.conversion``).
This package imports nothing of runyard but ``runyard.ids``.
"""

from runyard.messages.message import (
    AgentMessage,
    AnyMessage,
    CustomMessage,
    Role,
    any_message_adapter,
    is_llm_message,
)
from runyard.messages.parts import (
    FilePart,
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
    "FilePart",
    "MessagePart",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "any_message_adapter",
    "is_llm_message",
]
