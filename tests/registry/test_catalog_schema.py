"""The JSON Schema of catalog documents: committed, current, and true to the examples."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

from runyard.registry.schema_export import catalog_json_schema, catalog_json_schema_text

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "catalog.schema.json"
REGENERATE = "python -m runyard.registry.schema_export > docs/catalog.schema.json"


def test_the_committed_schema_is_up_to_date() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == catalog_json_schema_text(), (
        f"docs/catalog.schema.json is stale; regenerate it with: {REGENERATE}"
    )


def test_the_module_command_prints_the_committed_schema() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "runyard.registry.schema_export"],
        capture_output=True,
        text=True,
        check=True,
    )

    assert printed.stdout == catalog_json_schema_text()
    assert json.loads(printed.stdout)["title"] == "CatalogDocument"


def test_every_example_document_validates_and_unknown_fields_do_not() -> None:
    validator = jsonschema.Draft202012Validator(catalog_json_schema())
    documents = [
        document
        for path in sorted((ROOT / "examples" / "agents").glob("*.yaml"))
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8"))
    ]

    assert len(documents) == 9
    for document in documents:
        validator.validate(document)
    assert not validator.is_valid({"kind": "agent", "id": "a", "model": "runyard:demo", "x": 1})
    assert not validator.is_valid({"id": "a", "model": "runyard:demo"})
