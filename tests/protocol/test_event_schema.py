"""The JSON Schema of the wire events: complete, committed, and true to what the server writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from protocol_seed_examples import RICH_CONFIRMATION, SEED_EXAMPLES

from runyard.protocol import event_to_dict, parse_event
from runyard.protocol.schema import event_json_schema, event_json_schema_text

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "events.schema.json"
REGENERATE = "python -m runyard.protocol.schema > docs/events.schema.json"


def test_the_committed_schema_is_up_to_date() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == event_json_schema_text(), (
        f"docs/events.schema.json is stale; regenerate it with: {REGENERATE}"
    )


def test_the_module_command_prints_the_committed_schema() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "runyard.protocol.schema"],
        capture_output=True,
        text=True,
        check=True,
    )

    assert printed.stdout == event_json_schema_text()
    assert printed.stderr == ""


def test_the_schema_dispatches_on_type_to_every_event() -> None:
    schema = event_json_schema()
    mapping = schema["discriminator"]["mapping"]

    assert schema["discriminator"]["propertyName"] == "type"
    assert len(mapping) == 17
    for ref in mapping.values():
        event_schema = schema["$defs"][ref.removeprefix("#/$defs/")]
        assert event_schema["required"] == ["type", "runId", "agentId", "payload"]
        assert event_schema["additionalProperties"] is False


def test_optional_fields_are_optional_and_never_null() -> None:
    payload = event_json_schema()["$defs"]["RunFinishPayload"]

    assert payload["required"] == ["status"]
    assert payload["properties"]["reason"] == {"title": "reason", "type": "string"}


@pytest.mark.parametrize("example", [*SEED_EXAMPLES, json.dumps(RICH_CONFIRMATION)])
def test_what_the_server_writes_validates_against_the_schema(example: str) -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema validates the schema itself")
    written = event_to_dict(parse_event(example))

    jsonschema.Draft202012Validator(event_json_schema()).validate(written)
