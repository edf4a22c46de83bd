"""The default ``assistant``: its memory tiers follow the settings it is given, as the start-up report says."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from runyard.config import Settings
from runyard.memory import Memory
from runyard.service import default_agent
from runyard.storage import Store, open_store


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store("memory://")
    yield opened
    await opened.close()


async def test_semantic_recall_uses_the_settings_embedder(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNYARD_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    settings = Settings(
        model="runyard:demo",
        embedder_model="openai-compatible:nomic-embed",
        semantic_recall_top_k=3,
    )
    memory = default_agent(store, settings).memory
    assert memory is not None
    assert memory.recall is not None
    assert memory.recall.embedder.model_name == "openai-compatible:nomic-embed"
    assert memory.recall.config.top_k == 3


async def test_no_embedder_in_the_settings_means_no_semantic_recall(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The environment is not consulted behind the settings' back.
    monkeypatch.setenv("RUNYARD_EMBEDDER_MODEL", "openai-compatible:nomic-embed")
    memory = default_agent(store, Settings(model="runyard:demo", embedder_model="")).memory
    assert memory is not None
    assert memory.recall is None


async def test_observational_memory_follows_the_settings(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(
        model="runyard:demo",
        observational_memory=True,
        observer_model="runyard:demo",
        observer_message_tokens=8000,
        reflector_observation_tokens=12000,
    )
    memory = default_agent(store, settings).memory
    assert isinstance(memory, Memory)
    assert memory.observational is not None
    config = memory.observational.config
    assert (config.model, config.observer_message_tokens, config.reflector_observation_tokens) == (
        "runyard:demo",
        8000,
        12000,
    )
    # Off unless the settings say so; the environment behind them is not consulted.
    monkeypatch.setenv("RUNYARD_OBSERVATIONAL_MEMORY", "true")
    off = default_agent(store, Settings(model="runyard:demo", observational_memory=False)).memory
    assert isinstance(off, Memory)
    assert off.observational is None
