"""User text runyard stores as given, or refuses: no NUL characters, no lone surrogates.

A SQL text column could keep such text only altered (U+FFFD, docs/storage.md), so a user's
message or answer holding one is 422 naming the field (and where inside it), never silently
changed. Text from models and tools is never refused; the store replaces it instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import AfterValidator, JsonValue

from runyard.json_text import is_storable, replace_surrogates

__all__ = ["StorableJson", "StorableStr"]


def _storable(value: Any) -> Any:
    """Refuse text runyard could store only altered (NUL, lone surrogates), saying where."""
    where = _unstorable_at(value, "")
    if where is not None:
        at = f" (at {replace_surrogates(where)})" if where else ""
        raise ValueError(f"must not contain a NUL character or a lone surrogate{at}")
    return value


def _unstorable_at(value: Any, path: str) -> str | None:
    """The path of the first string (value or key) in ``value`` that is not storable."""
    if isinstance(value, str):
        return None if is_storable(value) else path
    if isinstance(value, dict):
        items: Iterable[tuple[object, Any]] = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        inner = f"{path}.{key}" if path else str(key)
        if isinstance(key, str) and not is_storable(key):
            return inner
        found = _unstorable_at(item, inner)
        if found is not None:
            return found
    return None


StorableStr = Annotated[str, AfterValidator(_storable)]
"""A string of user input: 422 naming the field for a NUL or a lone surrogate."""

StorableJson = Annotated[JsonValue, AfterValidator(_storable)]
"""A JSON value of user input: 422 for a NUL or a lone surrogate in any string or key inside."""
