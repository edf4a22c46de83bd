"""The one JSON writer for what runyard sends and stores, so a replayed event equals the live one.

``json_text`` writes compact JSON exactly as pydantic writes a model (``model_dump_json``): the
wire codec and the SQL store both use it, so the text a client got live and the text the store
hands back on replay are the same bytes. UTF-8 has no form for a lone surrogate (``"\\ud800"``,
which JSON text and Python strings can carry); such a code point is written as U+FFFD. NUL is
kept, as the JSON escape ``\\u0000``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

__all__ = ["is_storable", "json_text", "replace_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def json_text(value: Any) -> str:
    """``value`` (JSON types) as compact JSON; lone surrogates become U+FFFD, NaN and ±inf null."""
    try:
        return to_json(value, inf_nan_mode="null").decode()
    except PydanticSerializationError:
        # Rare (a model or tool produced a lone surrogate): only then walk the value.
        return to_json(_without_surrogates(value), inf_nan_mode="null").decode()


def replace_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (what a UTF-8 decoder would show)."""
    return _SURROGATE.sub("\ufffd", text)


def is_storable(text: str) -> bool:
    """False when ``text`` holds a NUL or a lone surrogate: what a SQL text column keeps only as
    U+FFFD (PostgreSQL's text has no NUL, UTF-8 no lone surrogate). runyard refuses such user
    input rather than change it."""
    return _UNSTORABLE.search(text) is None


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_surrogates(v) for v in value]
    return value
