"""Validators for tool arguments, suspend payloads and resume data.

Two flavours behind one small interface: a pydantic model (built from a function signature or
given by the developer) and a plain JSON Schema.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    import jsonschema

__all__ = ["JsonSchemaValidator", "ModelValidator", "Validator", "validator_for"]


class Validator(Protocol):
    json_schema: dict[str, Any]

    def validate(self, data: Any) -> Any:
        """Return the validated value or raise ``ValueError`` with a readable message."""
        ...


class ModelValidator:
    """Validates with a pydantic model; ``dump=True`` returns a plain dict instead of the model."""

    def __init__(self, model: type[BaseModel], *, dump: bool) -> None:
        self.model = model
        self.dump = dump
        self.json_schema = model.model_json_schema()

    def validate(self, data: Any) -> Any:
        try:
            value = self.model.model_validate(data)
        except ValidationError as exc:
            raise ValueError(_describe(exc)) from exc
        return value.model_dump() if self.dump else value


class JsonSchemaValidator:
    """Validates with a JSON Schema (draft 2020-12 unless the schema says otherwise).

    jsonschema (~0.1 s to import) is loaded on the first check, not when the SDK is imported:
    ``validator_for`` checks a developer's schema at once; a constant one waits for its first use.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.json_schema = schema

    @functools.cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        import jsonschema

        cls = jsonschema.validators.validator_for(self.json_schema)
        cls.check_schema(self.json_schema)
        return cls(self.json_schema)

    def checked(self) -> JsonSchemaValidator:
        """This validator, its schema checked now (``SchemaError`` when it is not valid)."""
        _ = self._validator
        return self

    def validate(self, data: Any) -> Any:
        errors = sorted(self._validator.iter_errors(data), key=lambda e: list(e.path))
        if errors:
            raise ValueError("; ".join(_describe_json_error(e) for e in errors))
        return data


def validator_for(schema: type[BaseModel] | dict[str, Any]) -> Validator:
    """The right validator for a schema given as a pydantic model class or a JSON Schema dict."""
    if isinstance(schema, dict):
        return JsonSchemaValidator(schema).checked()
    return ModelValidator(schema, dump=False)


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "input"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _describe_json_error(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.path) or "input"
    return f"{where}: {error.message}"
