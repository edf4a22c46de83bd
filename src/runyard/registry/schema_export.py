"""The JSON Schema of one catalog document, for editors and for checks outside Python.

``docs/catalog.schema.json`` is generated from the spec models; regenerate it after changing one:

    python -m runyard.registry.schema_export > docs/catalog.schema.json

(a test fails while the committed file is stale). It describes what a file may say; the checks
across files (unknown tools, missing agents, duplicate ids) are the loader's.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import TypeAdapter

from runyard.registry.specs import CatalogSpecDocument

__all__ = ["catalog_json_schema", "catalog_json_schema_text", "main"]


def catalog_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one YAML document of a catalog file."""
    schema = TypeAdapter(CatalogSpecDocument).json_schema(mode="validation", by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "CatalogDocument",
        "description": "One document of a runyard catalog file: an agent, a tool or a routing "
        "(see docs/catalog.md).",
        **schema,
    }


def catalog_json_schema_text() -> str:
    """The schema exactly as committed in ``docs/catalog.schema.json`` (stable key order)."""
    return json.dumps(catalog_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    """Write the schema to standard output."""
    sys.stdout.write(catalog_json_schema_text())


if __name__ == "__main__":
    main()
