"""runyard's own message types: the one vocabulary every layer speaks.

Provider formats are mapped to and from these at one edge (``runyard.models.conversion``);
LangChain's standard content blocks at another (``langchain_blocks``).
This package imports nothing of runyard but ``runyard.ids``.
"""

from runyard.messages.langchain_blocks import (
    from_langchain_block,
    from_langchain_blocks,
    to_langchain_block,
    to_langchain_blocks,
)
from runyard.messages.message import (
    AgentMessage,
    AnyMessage,
    CustomMessage,
    Role,
    any_message_adapter,
    is_llm_message,
)
from runyard.messages.parts import (
    AudioPart,
    CitationPart,
    ContentBlock,
    FilePart,
    ImagePart,
    JsonPart,
    MediaPart,
    MessagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    VideoPart,
    media_size,
    whole_blocks,
)
from runyard.messages.tool_content import ToolBlock, tool_block, tool_blocks

__all__ = [
    "AgentMessage",
    "AnyMessage",
    "AudioPart",
    "CitationPart",
    "ContentBlock",
    "CustomMessage",
    "FilePart",
    "ImagePart",
    "JsonPart",
    "MediaPart",
    "MessagePart",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolBlock",
    "ToolCallPart",
    "ToolResultPart",
    "VideoPart",
    "any_message_adapter",
    "from_langchain_block",
    "from_langchain_blocks",
    "is_llm_message",
    "media_size",
    "to_langchain_block",
    "to_langchain_blocks",
    "tool_block",
    "tool_blocks",
    "whole_blocks",
]
