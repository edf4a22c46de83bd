"""Catalogs for routing tests, written as the YAML an operator would write."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from runyard.registry import Catalog, FieldTest, load_catalog
from runyard.routing import InvocationContext


def catalog_of(directory: Path, yaml_text: str) -> Catalog:
    """The catalog of one file holding ``yaml_text``; fails the test when any document is bad."""
    path = directory / "catalog.yaml"
    path.write_text(textwrap.dedent(yaml_text).lstrip("\n"), encoding="utf-8")
    loaded = load_catalog(path, known_tools=())
    assert not loaded.errors, [str(error) for error in loaded.errors]
    return loaded.catalog


def agents(*ids: str, tenant: str | None = None) -> str:
    """``kind: agent`` documents for ``ids`` (the instructions tell the specs apart)."""
    scope = f"tenant: {tenant}\n" if tenant else ""
    return "".join(
        f"kind: agent\nid: {i}\n{scope}model: runyard:demo\ninstructions: {tenant or 'shared'} {i}\n---\n"
        for i in ids
    )


def context(**fields: Any) -> InvocationContext:
    return InvocationContext.model_validate({"tenant": "default", **fields})


def field_test(**test: Any) -> FieldTest:
    return FieldTest.model_validate(test)
