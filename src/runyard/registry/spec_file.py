"""One catalog file read into specs: YAML documents validated one by one, every fault located.

A file is all or nothing: when any of its documents is wrong the loader rejects the whole file,
so an operator never gets half of an edit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from runyard.registry.catalog import CatalogEntry
from runyard.registry.errors import CatalogError
from runyard.registry.field_suggestion import meant_field
from runyard.registry.specs import SPEC_KINDS, CatalogSpec
from runyard.registry.yaml_documents import (
    FieldPath,
    YamlDocument,
    YamlError,
    field_name,
    line_at,
    read_documents,
)

__all__ = ["read_spec_file", "read_spec_text"]

_KINDS = ", ".join(SPEC_KINDS)


def read_spec_file(path: Path) -> tuple[list[CatalogEntry[CatalogSpec]], list[CatalogError]]:
    """The specs of one file and everything wrong with it; ``path`` names it in errors."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [CatalogError(source, 1, "file", f"cannot read it: {exc}")]
    return read_spec_text(text, source)


def read_spec_text(
    text: str, source: str
) -> tuple[list[CatalogEntry[CatalogSpec]], list[CatalogError]]:
    """The specs of the YAML ``text`` of the file ``source``, and every fault in it."""
    entries: list[CatalogEntry[CatalogSpec]] = []
    errors: list[CatalogError] = []
    try:
        for document in read_documents(text):
            entry, faults = _spec(document, source)
            errors += faults
            if entry is not None:
                entries.append(entry)
    except YamlError as exc:
        field = field_name(exc.path) or "yaml"
        errors.append(CatalogError(source, exc.line, field, exc.message))
    return entries, sorted(errors, key=lambda error: error.line)


def _spec(
    document: YamlDocument, source: str
) -> tuple[CatalogEntry[CatalogSpec] | None, list[CatalogError]]:
    start = line_at(document.lines, ())
    value = document.value
    if not isinstance(value, dict):
        message = f"a catalog document is a mapping with a kind ({_KINDS})"
        return None, [CatalogError(source, start, "document", message)]
    kind = value.get("kind")
    model = SPEC_KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        message = (
            f"unknown kind {kind!r}: expected one of {_KINDS}"
            if kind
            else f"missing: one of {_KINDS}"
        )
        return None, [CatalogError(source, line_at(document.lines, ("kind",)), "kind", message)]
    try:
        spec = model.model_validate(value)
    except ValidationError as exc:
        located = [_located(error, document, source, model) for error in exc.errors()]
        return None, _merged(located)
    return CatalogEntry(spec, source, start, lines=document.lines), []


def _located(
    error: ErrorDetails, document: YamlDocument, source: str, model: type[BaseModel]
) -> CatalogError:
    path = _data_path(error, document.value)
    field = field_name(path) or "document"
    return CatalogError(source, line_at(document.lines, path), field, _message(error, model, path))


def _merged(errors: list[CatalogError]) -> list[CatalogError]:
    """One error per field: the members of a union that all refused a value say so together."""
    by_field: dict[tuple[int, str], CatalogError] = {}
    for error in errors:
        key = (error.line, error.field)
        if (first := by_field.get(key)) is not None:
            error = CatalogError(
                first.file, first.line, first.field, f"{first.message}; or {error.message}"
            )
        by_field[key] = error
    return list(by_field.values())


def _data_path(error: ErrorDetails, value: Any) -> FieldPath:
    """The part of pydantic's ``loc`` that is keys and indexes of the document itself.

    ``loc`` also names union members and tags (``FieldTest``, ``int``); those are not in the data
    and are dropped. A missing field is kept: it is the name the user has to add.
    """
    loc = error["loc"]
    path: list[str | int] = []
    for position, part in enumerate(loc):
        if isinstance(value, dict) and str(part) in value:
            value = value[str(part)]
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        elif isinstance(value, dict) and error["type"] == "missing" and position == len(loc) - 1:
            pass
        else:
            continue
        path.append(part if isinstance(part, int) else str(part))
    return tuple(path)


def _message(error: ErrorDetails, model: type[BaseModel], path: FieldPath) -> str:
    if error["type"] == "extra_forbidden":
        meant = meant_field(model, path)
        return "unknown field" + (f"; did you mean `{meant}`?" if meant else "")
    if error["type"] == "missing":
        return "required field is missing"
    return error["msg"].removeprefix("Value error, ")
