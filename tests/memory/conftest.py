"""Fixtures for memory tests: a fresh store per test, on the in-memory and the SQLite backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runyard.storage import Store, open_store


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A ready, empty store."""
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'memory.db'}"
    opened = await open_store(url)
    try:
        yield opened
    finally:
        await opened.close()
