"""A package installed for one test: a ``runyard.middleware`` entry point on ``sys.path``.

It writes a module and its ``.dist-info`` (with ``entry_points.txt``) under ``tmp_path`` and puts
that on ``sys.path``, as ``pip install`` would put them in site-packages.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

PLUGIN_MODULE = '''
from typing import Any
from collections.abc import Mapping

from runyard.runtime.middleware import DeltaChannel, DeltaFilter, Middleware


class _Stamp:
    def __init__(self, mark: str) -> None:
        self.mark = mark

    def push(self, delta: str) -> str:
        return delta.replace("ACME", self.mark)

    def flush(self) -> str:
        return ""


class Stamp(Middleware):
    """Replaces the word ACME by the tenant's mark in streamed text."""

    def __init__(self, mark: str) -> None:
        self.mark = mark

    def delta_filter(self, channel: DeltaChannel) -> DeltaFilter | None:
        return _Stamp(self.mark) if channel == "text" else None


class StampBuilder:
    def build(self, parameters: Mapping[str, Any], context: Any) -> Middleware:
        if "mark" not in parameters:
            raise ValueError("mark is required")
        return Stamp(str(parameters["mark"]))
'''


def install_middleware_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str = "acme_stamp"
) -> None:
    """Install the package ``acme-guard`` whose ``runyard.middleware`` entry point ``name`` is
    ``acme_guard:StampBuilder``."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "acme_guard.py").write_text(textwrap.dedent(PLUGIN_MODULE))
    info = root / "acme_guard-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-guard\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[runyard.middleware]\n{name} = acme_guard:StampBuilder\n"
    )
    monkeypatch.syspath_prepend(str(root))
