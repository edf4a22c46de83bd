"""What every catalog spec shares: strict pydantic models, and the id and tenant formats.

A spec is plain data (STYLE.md §6): frozen, no closures, unknown fields refused, so the same
document always validates to the same value and hashes to the same version.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints

__all__ = [
    "SPEC_ID_PATTERN",
    "JsonSchema",
    "SpecId",
    "SpecModel",
    "TenantId",
    "valid_json_schema",
]

SPEC_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""Agent, tool and rule ids: a letter or digit, then letters, digits, ``.``, ``_``, ``-``."""

SpecId = Annotated[str, StringConstraints(pattern=SPEC_ID_PATTERN)]

TenantId = Annotated[str, StringConstraints(pattern="^[A-Za-z0-9._@-]{1,128}$")]
"""The same form as the ``X-Runyard-Tenant`` header (http.identity)."""


class SpecModel(BaseModel):
    """A part of a catalog spec: unknown fields are errors, values never change once validated."""

    # Built at the first spec validated, not at import: a server with no catalog (the embedded
    # default) never validates one, and building them all was ~0.8% of its start-up.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


def valid_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` when it is a JSON Schema (draft 2020-12), else a validation error naming the fault."""
    # Imported by the first spec that brings a schema: ``runyard serve`` without one never pays
    # for jsonschema (docs/benchmarks.md, cold start).
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON Schema: {exc.message}") from exc
    return schema


JsonSchema = Annotated[dict[str, Any], AfterValidator(valid_json_schema)]
