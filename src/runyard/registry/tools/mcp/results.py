"""What the model sees of an MCP tool's result: its structured content, else its text.

A result the server marks ``isError`` is a ``ToolError`` carrying the server's text, so the
model reads it as the tool's error and can react. Binary content (images, audio, blobs) is not
passed on as base64 the model would have to read: it is named by its type and size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runyard.errors import ToolError

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ContentBlock, EmbeddedResource

__all__ = ["tool_output"]


def tool_output(result: CallToolResult) -> Any:
    """The output of a successful call; a ``ToolError`` with the server's text for an error."""
    if result.is_error:
        raise ToolError(_text(result.content) or "the MCP server reported an error without text")
    if result.structured_content is not None:
        return result.structured_content
    return _text(result.content)


def _text(content: list[ContentBlock]) -> str:
    return "\n".join(_block_text(block) for block in content)


def _block_text(block: ContentBlock) -> str:
    # Imported here: the mcp package costs seconds at import, paid only once an mcp tool runs.
    from mcp.types import AudioContent, ImageContent, ResourceLink, TextContent

    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        return f"[{block.type}: {block.mime_type}, {len(block.data)} base64 characters]"
    if isinstance(block, ResourceLink):
        return f"[resource: {block.uri}]"
    return _resource_text(block)


def _resource_text(block: EmbeddedResource) -> str:
    from mcp.types import TextResourceContents

    resource = block.resource
    if isinstance(resource, TextResourceContents):
        return resource.text
    return f"[resource: {resource.uri}, {resource.mime_type or 'binary'}]"
