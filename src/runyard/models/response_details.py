"""The provider-side details of a response that must survive a trip through runyard's storage.

Providers check some of what they sent when it comes back in the history: OpenAI's Responses API
replays reasoning and message items by id, signed or encrypted reasoning only goes back to the
system that produced it. runyard's parts have no place for these, so they ride in the assistant
message's ``metadata["provider"]`` and are put back on the way out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from pydantic_ai import messages as pai

__all__ = [
    "provider_details",
    "response_fields",
    "with_part_details",
]

_RESPONSE_FIELDS = (
    "model_name",
    "provider_name",
    "provider_url",
    "provider_response_id",
    "canonical_system",
)
_PART_FIELDS = ("id", "provider_name", "provider_details")

_Part = TypeVar("_Part", bound=pai.ModelResponsePart)


def provider_details(response: pai.ModelResponse) -> dict[str, Any]:
    """The response's provider fields and per-part ids, leaving out everything that is unset."""
    details: dict[str, Any] = {
        name: value for name in _RESPONSE_FIELDS if (value := getattr(response, name)) is not None
    }
    parts = {
        str(index): fields
        for index, part in enumerate(_kept_parts(response))
        if (fields := _part_fields(part))
    }
    if parts:
        details["parts"] = parts
    return details


def response_fields(details: dict[str, Any] | None) -> dict[str, Any]:
    """The response-level fields :func:`provider_details` recorded, as ``ModelResponse``
    keyword arguments: a response built with them needs no copy afterwards."""
    if not details:
        return {}
    return {name: details[name] for name in _RESPONSE_FIELDS if name in details}


def with_part_details(part: _Part, details: dict[str, Any] | None, index: int) -> _Part:
    """``part`` (the ``index``-th kept part) with the fields recorded for it put back.

    Only a part that recorded something is copied: a copy per part is measurable on every
    model call (docs/benchmarks.md, runtime overhead).
    """
    recorded = (details.get("parts") or {}).get(str(index)) if details else None
    return replace(part, **recorded) if recorded else part


def _kept_parts(response: pai.ModelResponse) -> list[pai.ModelResponsePart]:
    # Indexes count the parts runyard keeps, so they line up with the message's parts.
    kept = (pai.TextPart, pai.ThinkingPart, pai.ToolCallPart, pai.FilePart)
    return [part for part in response.parts if isinstance(part, kept)]


def _part_fields(part: pai.ModelResponsePart) -> dict[str, Any]:
    fields = {name: getattr(part, name, None) for name in _PART_FIELDS}
    if isinstance(part, pai.ThinkingPart):
        fields.pop("provider_name")  # ReasoningPart has its own field for it
    return {name: value for name, value in fields.items() if value is not None}
