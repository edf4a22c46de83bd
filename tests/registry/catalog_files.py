"""Writing catalog files for tests, and the tool names the service has today."""

from __future__ import annotations

import textwrap
from pathlib import Path

from runyard.registry import CatalogLoad, load_catalog

BUILTINS = ("calculator", "list_notes", "save_note", "plan", "delegate")


def write(directory: Path, name: str, text: str) -> Path:
    """``text`` (dedented) as ``directory/name``; returns the file's path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(directory: Path) -> CatalogLoad:
    return load_catalog(directory, known_tools=BUILTINS)


def error_lines(loaded: CatalogLoad) -> list[str]:
    return [str(error) for error in loaded.errors]


AGENT = "kind: agent\nid: {id}\nmodel: runyard:demo\n"
