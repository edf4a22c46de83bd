"""How routing compares and shows JSON values: by JSON type, so ``true`` never equals ``1``.

Python's ``==`` says ``True == 1`` and ``1 == 1.0``; a rule's author thinks in JSON, where a
boolean is no number and ``1`` and ``1.0`` are the same number.
"""

from __future__ import annotations

import json

from pydantic import JsonValue

__all__ = ["described_type", "is_number", "json_equal", "json_type", "show"]

_SHOWN_CHARACTERS = 80


def json_type(value: JsonValue) -> str:
    """``null``, ``boolean``, ``number``, ``string``, ``array`` or ``object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def described_type(value: JsonValue) -> str:
    """The type of ``value`` for a sentence: ``a string``, ``an array``, ``null``, …"""
    name = json_type(value)
    if name == "null":
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def is_number(value: JsonValue) -> bool:
    """An integer or a float, never a boolean."""
    return json_type(value) == "number"


def json_equal(left: JsonValue, right: JsonValue) -> bool:
    """Equal as JSON: the same type and the same value."""
    return json_type(left) == json_type(right) and left == right


def show(value: JsonValue) -> str:
    """``value`` as JSON, cut short when long (explanations are read by people)."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return text[: _SHOWN_CHARACTERS - 1] + "…"
