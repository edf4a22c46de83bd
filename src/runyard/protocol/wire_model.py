"""The base of every wire type: snake_case in Python, camelCase on the wire, omitted when unset.

Nothing here knows an event type; ``events.py`` and ``payloads.py`` build on it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = ["WireModel", "omitted_if_none"]


def _is_none(value: object) -> bool:
    return value is None


def _camel_title(name: str, _info: object) -> str:
    return to_camel(name)


def omitted_if_none() -> Any:
    """The default of an optional wire field: ``None``, and left out of the JSON when it is.

    This is per field rather than ``exclude_none`` on the whole dump, because a required field
    may legitimately hold ``null`` (a tool that returned ``None``) and must still be written.
    """
    return Field(default=None, exclude_if=_is_none)


class WireModel(BaseModel):
    """Frozen, closed (unknown fields are rejected) and camelCase on the wire.

    Python code constructs and reads models by their snake_case names; both spellings validate.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        field_title_generator=_camel_title,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        frozen=True,
        extra="forbid",
    )
