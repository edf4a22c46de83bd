"""The JSON Schema of the wire events, for clients in other languages.

``docs/events.schema.json`` is generated from it; regenerate after changing any event model:

    python -m runyard.protocol.schema > docs/events.schema.json

(a test fails while the committed file is stale).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from runyard.protocol.codec import event_adapter

__all__ = ["event_json_schema", "event_json_schema_text"]


class _WireJsonSchema(GenerateJsonSchema):
    """The JSON as the server writes it.

    Optional fields are left out rather than written as ``null``, and every other field is always
    written, defaults (``type``, ``args``) included.
    """

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        inner = field["schema"]
        if inner["type"] == "default":
            return "default" not in inner or inner["default"] is not None
        return super().field_is_required(field, total)

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if "default" in json_schema and json_schema["default"] is None:
            del json_schema["default"]
        return json_schema


def event_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one wire event, camelCase, as the server writes it."""
    schema = event_adapter.json_schema(mode="serialization", schema_generator=_WireJsonSchema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "WireEvent",
        "description": "One event of the runyard streaming protocol (see docs/protocol.md).",
        **schema,
    }


def event_json_schema_text() -> str:
    """The schema exactly as committed in ``docs/events.schema.json`` (stable key order)."""
    return json.dumps(event_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    """Write the schema to standard output."""
    sys.stdout.write(event_json_schema_text())


if __name__ == "__main__":
    main()
