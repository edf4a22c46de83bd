"""runyard: a self-hostable agent inference service and the Python agent runtime inside it."""

from runyard.messages import (
    AgentMessage,
    CustomMessage,
    FilePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "AgentMessage",
    "CustomMessage",
    "FilePart",
    "ReasoningPart",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
]
