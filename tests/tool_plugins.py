"""Installing a tool-factory plugin for a test: a module and its ``runyard.tools`` entry point in a
fresh ``sys.path`` entry, found by ``importlib.metadata`` as a pip-installed package would be."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

Install = Callable[[str, str, str], None]
"""``install(distribution, "name = module:object", module_source)``."""


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """Installs a distribution into a fresh ``sys.path`` entry: its module and its entry point."""
    modules: list[str] = []
    site = tmp_path / "site-packages"
    site.mkdir()

    def install_plugin(dist: str, entry_point: str, module_source: str) -> None:
        module = dist.replace("-", "_")
        (site / f"{module}.py").write_text(textwrap.dedent(module_source))
        info = site / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[runyard.tools]\n{entry_point}\n")
        modules.append(module)

    monkeypatch.syspath_prepend(str(site))
    yield install_plugin
    for module in modules:
        sys.modules.pop(module, None)
