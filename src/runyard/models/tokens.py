"""Offline token estimates, for budgets and triggers where an exact count is not worth a tokenizer.

No tokenizer is bundled (they download vocabularies). The heuristic follows how BPE tokenizers
of the GPT/Claude families split text: a common word is about one token and a long one about one
per five letters; digits go in groups of up to three; punctuation and JSON syntax cost about one
token per one or two characters. So JSON, dense with quotes and braces, comes out at roughly
one token per 3 characters and English prose at roughly one per 4 to 4.5, the ratios providers
publish. Treat results as ±30%: good for "is this near the limit", not for billing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

from runyard.messages import (
    AgentMessage,
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    VideoPart,
    media_size,
)

__all__ = ["estimate_message_tokens", "estimate_tokens"]

_PIECES = re.compile(r"(?P<word>[^\W\d_]+)|(?P<digits>\d+)|(?P<other>[^\w\s]+)|_+", re.UNICODE)
_MESSAGE_OVERHEAD = 4  # role and separators each message costs in a chat template
_IMAGE_TOKENS = 500  # a typical image as providers bill it (a tile grid of ~1 megapixel)
_FILE_TOKENS = 500  # a media file whose size is unknown (by reference): a short clip or page
_BYTES_PER_TOKEN = {"audio": 1000, "video": 300, "file": 4}
"""Inline media by size: ~32 tokens a second of 32 kB/s audio, a few frames a second of video,
and a document's text (a PDF page of ~3 kB is ~750 tokens)."""


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` is for a modern BPE tokenizer (0 for empty text)."""
    total = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        if match.lastgroup == "word":
            total += 1 if len(piece) <= 6 else math.ceil(len(piece) / 5)
        elif match.lastgroup == "digits":
            total += math.ceil(len(piece) / 3)
        else:
            total += math.ceil(len(piece) / 2) if match.lastgroup == "other" else 1
    return total


def estimate_message_tokens(messages: Sequence[AgentMessage]) -> int:
    """Roughly how many input tokens ``messages`` cost, template overhead included."""
    return sum(_MESSAGE_OVERHEAD + _message_tokens(message) for message in messages)


def _message_tokens(message: AgentMessage) -> int:
    total = 0
    for part in message.parts:
        if isinstance(part, TextPart | ReasoningPart):
            total += estimate_tokens(part.text)
        elif isinstance(part, ToolCallPart):
            total += estimate_tokens(part.tool_name) + estimate_tokens(json.dumps(part.args))
        elif isinstance(part, ToolResultPart):
            total += estimate_tokens(_as_text(part.result))
        elif isinstance(part, JsonPart):
            total += estimate_tokens(_as_text(part.data))
        elif isinstance(part, CitationPart):
            total += estimate_tokens(
                " ".join(filter(None, (part.title, part.url, part.cited_text)))
            )
        elif isinstance(part, ImagePart):
            total += _IMAGE_TOKENS
        elif isinstance(part, AudioPart | VideoPart | FilePart):
            total += _media_tokens(part)
    return total


def _media_tokens(part: AudioPart | VideoPart | FilePart) -> int:
    size = media_size(part)
    if size is None:
        return _FILE_TOKENS
    return max(1, size // _BYTES_PER_TOKEN[part.type])


def _as_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)
