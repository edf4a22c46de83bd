"""Reading and writing wire events: the one place JSON meets the event models.

``event_to_json`` runs on every SSE write and every event-log insert, so it is a single call into
pydantic-core's serializer (one to two µs for a text delta; see docs/protocol.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from runyard.json_text import json_text
from runyard.protocol.events import WireEvent

__all__ = ["event_adapter", "event_to_dict", "event_to_json", "parse_event"]

event_adapter: TypeAdapter[WireEvent] = TypeAdapter(WireEvent)
"""Validates any wire event (dispatching on ``type``) and builds its JSON Schema."""


def parse_event(data: dict[str, Any] | str | bytes) -> WireEvent:
    """Validate one event from its JSON text or its decoded dict (camelCase or snake_case keys).

    Raises ``pydantic.ValidationError`` naming the offending field for anything malformed,
    including an unknown ``type`` or an unexpected field.
    """
    if isinstance(data, str | bytes):
        return event_adapter.validate_json(data)
    return event_adapter.validate_python(data)


def event_to_json(event: WireEvent) -> str:
    """The event as compact camelCase JSON, optional fields left out when unset.

    The same text ``runyard.json_text`` writes for ``event_to_dict(event)``, which is what the
    store keeps: a replayed event is byte for byte the live one.
    """
    try:
        return event.model_dump_json()
    except PydanticSerializationError:
        # A lone surrogate from a model or tool has no UTF-8 form: written as U+FFFD, as stored.
        return json_text(event_to_dict(event))


def event_to_dict(event: WireEvent) -> dict[str, Any]:
    """The event as the camelCase dict ``event_to_json`` would write (JSON types only)."""
    return event.model_dump(mode="json")
