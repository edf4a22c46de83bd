"""``watch_catalog``: an edit made the moment the watch starts is not missed; every version
served is stored in the database, before it serves; a directory that empties is refused whole."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from runyard.config import Settings
from runyard.registry.tools import ToolDependencies
from runyard.service import CatalogAgents, CatalogState, open_catalog, watch_catalog
from runyard.storage import Store

AGENT = "kind: agent\nid: a\nmodel: runyard:demo\ninstructions: {}\n"


@pytest.fixture
async def agents(tmp_path: Path, store: Store) -> AsyncIterator[CatalogAgents]:
    (tmp_path / "a.yaml").write_text(AGENT.format("one"))
    async with ToolDependencies(store=store) as deps:
        opened = open_catalog(Settings(catalog_dir=str(tmp_path)), store, deps)
        assert opened is not None
        opened.compile_all()
        yield opened
        await opened.aclose()


async def changed(agents: CatalogAgents, after: int) -> CatalogState:
    async with asyncio.timeout(10):
        while True:
            if agents.state.generation != after:
                return agents.state
            await asyncio.sleep(0.01)


def instructions(state: CatalogState) -> str:
    entry = state.catalog.agent("a")
    assert entry is not None
    return entry.spec.instructions


async def test_an_edit_right_after_the_watch_starts_is_seen_and_every_version_is_stored(
    tmp_path: Path, store: Store, agents: CatalogAgents
) -> None:
    first = agents.state
    async with watch_catalog(agents):
        (tmp_path / "a.yaml").write_text(AGENT.format("two"))
        second = await changed(agents, first.generation)

    assert instructions(second) == "two"
    stored = await store.list_agent_versions("a", None)
    assert [(v.version, v.origin) for v in stored] == [
        (first.catalog.agents[(None, "a")].version, "file"),
        (second.catalog.agents[(None, "a")].version, "file"),
    ]
    assert stored[0].spec["instructions"] == "one"
    assert stored[0].source == f"{tmp_path / 'a.yaml'}:1"


async def test_a_directory_left_without_agents_is_refused_and_the_old_catalog_serves(
    tmp_path: Path, agents: CatalogAgents, caplog: pytest.LogCaptureFixture
) -> None:
    async with watch_catalog(agents):
        before = agents.state
        (tmp_path / "a.yaml").unlink()
        (tmp_path / "b.yaml").write_text("kind: routing\ndefault_agent: a\n")
        async with asyncio.timeout(10):
            while True:
                if "holds no agent to serve" in caplog.text:
                    break
                await asyncio.sleep(0.01)

    assert agents.state.same_as(before)
    assert agents.state.generation == before.generation
    assert instructions(agents.state) == "one"
