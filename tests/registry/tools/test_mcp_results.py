"""What the model sees of an MCP tool's result (``tool_output``), block by block."""

from __future__ import annotations

import pytest
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from runyard.errors import ToolError
from runyard.registry.tools.mcp import tool_output


def test_structured_content_wins_over_the_text_that_repeats_it() -> None:
    result = CallToolResult(content=[TextContent(text='{"n": 1}')], structured_content={"n": 1})

    assert tool_output(result) == {"n": 1}


def test_text_blocks_are_joined_and_binary_content_is_named_not_passed_on() -> None:
    result = CallToolResult(
        content=[
            TextContent(text="Here is the chart."),
            ImageContent(data="aGVsbG8=", mime_type="image/png"),
            ResourceLink(name="report", uri="file:///srv/report.pdf"),
            EmbeddedResource(resource=TextResourceContents(uri="file:///a.txt", text="inline")),
            EmbeddedResource(
                resource=BlobResourceContents(uri="file:///b.bin", blob="AAEC", mime_type=None)
            ),
        ]
    )

    assert tool_output(result) == (
        "Here is the chart.\n"
        "[image: image/png, 8 base64 characters]\n"
        "[resource: file:///srv/report.pdf]\n"
        "inline\n"
        "[resource: file:///b.bin, binary]"
    )


def test_an_error_result_is_a_tool_error_with_its_text() -> None:
    with pytest.raises(ToolError, match=r"^disk full$"):
        tool_output(CallToolResult(content=[TextContent(text="disk full")], is_error=True))
    with pytest.raises(ToolError, match="reported an error without text"):
        tool_output(CallToolResult(content=[], is_error=True))
