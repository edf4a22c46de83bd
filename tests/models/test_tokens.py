"""Offline token estimates: sane, monotonic, denser for JSON than for prose."""

from __future__ import annotations

import base64
import json

from runyard.messages import (
    AgentMessage,
    FilePart,
    ImagePart,
    JsonPart,
    ToolCallPart,
    ToolResultPart,
)
from runyard.models import estimate_message_tokens, estimate_tokens

PROSE = "The quick brown fox jumps over the lazy dog while the farmer watches. " * 10
JSON = json.dumps([{"id": n, "name": "item", "tags": ["a", "b"], "price": 12.5} for n in range(10)])


def test_empty_text_is_zero_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("   \n") == 0


def test_prose_is_about_four_characters_a_token() -> None:
    ratio = len(PROSE) / estimate_tokens(PROSE)
    assert 3.5 <= ratio <= 5.5


def test_json_costs_more_tokens_per_character_than_prose() -> None:
    assert len(JSON) / estimate_tokens(JSON) < len(PROSE) / estimate_tokens(PROSE)


def test_more_text_is_never_fewer_tokens() -> None:
    assert estimate_tokens("hello") <= estimate_tokens("hello world") <= estimate_tokens(PROSE)


def test_long_words_and_numbers_cost_more_than_one_token() -> None:
    assert estimate_tokens("internationalization") > 1
    assert estimate_tokens("1234567890") == 4


def test_messages_count_every_part_and_their_overhead() -> None:
    call = AgentMessage(
        role="assistant",
        parts=[ToolCallPart(tool_call_id="c", tool_name="calculator", args={"expression": "1+1"})],
    )
    result = AgentMessage(
        role="tool",
        parts=[ToolResultPart(tool_call_id="c", tool_name="calculator", result={"result": 2})],
    )
    image = AgentMessage(role="user", parts=[FilePart(media_type="image/png", url="https://x")])
    text = AgentMessage.user(PROSE)
    assert estimate_message_tokens([]) == 0
    assert estimate_message_tokens([text]) > estimate_tokens(PROSE)
    for message in (call, result, image):
        assert estimate_message_tokens([message]) > estimate_message_tokens(
            [AgentMessage(role=message.role)]
        )
    assert estimate_message_tokens([text, call]) == estimate_message_tokens(
        [text]
    ) + estimate_message_tokens([call])


def test_content_blocks_count_by_kind_and_size() -> None:
    pdf = base64.b64encode(b"x" * 4000).decode()
    image = AgentMessage(role="user", parts=[ImagePart(mime_type="image/png", base64=pdf)])
    document = AgentMessage(role="user", parts=[FilePart(mime_type="application/pdf", base64=pdf)])
    data = AgentMessage(role="user", parts=[JsonPart(data={"rows": [1, 2, 3]})])
    stored = AgentMessage(role="user", parts=[FilePart(file_id="file_1")])

    assert estimate_message_tokens([image]) == 4 + 500
    assert estimate_message_tokens([document]) == 4 + 1000
    assert estimate_message_tokens([data]) == 4 + estimate_tokens('{"rows": [1, 2, 3]}')
    assert estimate_message_tokens([stored]) == 4 + 500
