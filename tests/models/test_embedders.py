"""Resolving embedders: construction only; a missing key or extra says what to do."""

from __future__ import annotations

import importlib.util

import pytest

from runyard.models import ConfigurationError, Embedder, resolve_embedder


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RUNYARD_OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_an_openai_embedder_resolves_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "fake")
    embedder = resolve_embedder("openai:text-embedding-3-small")
    assert isinstance(embedder, Embedder)
    assert embedder.model_name == "openai:text-embedding-3-small"


def test_an_openai_embedder_without_a_key_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        resolve_embedder("openai:text-embedding-3-small")


def test_an_openai_compatible_embedder_takes_a_base_url() -> None:
    embedder = resolve_embedder("openai-compatible:nomic-embed", base_url="http://127.0.0.1:1/v1")
    assert embedder.model_name == "openai-compatible:nomic-embed"


def test_an_unknown_embedder_lists_the_known_providers() -> None:
    with pytest.raises(ConfigurationError, match="sentence-transformers"):
        resolve_embedder("anthropic:nothing")


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed here",
)
def test_sentence_transformers_without_the_extra_names_it() -> None:
    with pytest.raises(ConfigurationError, match=r"runyard\[sentence-transformers\]"):
        resolve_embedder("sentence-transformers:all-MiniLM-L6-v2")


async def test_no_texts_need_no_call() -> None:
    embedder = resolve_embedder("openai-compatible:e", base_url="http://127.0.0.1:1/v1")
    assert await embedder.embed([]) == []
