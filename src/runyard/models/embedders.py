"""Embedders: text -> vectors for semantic recall, behind one small Protocol.

``resolve_embedder`` accepts pydantic-ai's embedding model strings (``"openai:text-embedding-3-small"``,
``"google:…"``, ``"cohere:…"``, ``"voyageai:…"``, ``"bedrock:…"``), ``"openai-compatible:NAME"`` and
``"ollama:NAME"`` for local servers, and ``"sentence-transformers:NAME"`` for local models when
that extra is installed. Resolving constructs objects only; nothing is sent or downloaded until
the first ``embed`` (a sentence-transformers name that is not a local path or already cached
would be downloaded then, so point it at a local copy on machines without a network).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic_ai.embeddings import EmbeddingModel, infer_embedding_model

from runyard.errors import ConfigurationError
from runyard.models.providers import OPENAI_COMPATIBLE, build_provider, configuration_errors
from runyard.models.usage import Usage

__all__ = ["Embedder", "ModelEmbedder", "check_embedder_name", "resolve_embedder"]

_EMBEDDING_PROVIDERS = (
    "openai",
    OPENAI_COMPATIBLE,
    "ollama",
    "google",
    "cohere",
    "voyageai",
    "bedrock",
    "sentence-transformers",
)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors, one per text, all of one length."""

    model_name: str

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


class ModelEmbedder:
    """An ``Embedder`` over a pydantic-ai embedding model; ``usage`` sums every call so far."""

    def __init__(self, model: EmbeddingModel) -> None:
        self._model = model
        self.model_name = f"{model.system}:{model.model_name}"
        self.usage = Usage()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, embedded as documents."""
        if not texts:
            return []
        result = await self._model.embed(list(texts), input_type="document")
        self.usage = self.usage + _result_usage(result)
        return [list(vector) for vector in result.embeddings]


def resolve_embedder(
    spec: str, *, base_url: str | None = None, api_key: str | None = None
) -> ModelEmbedder:
    """The embedder ``spec`` names, e.g. ``"openai:text-embedding-3-small"``; no network is used."""
    provider, name = check_embedder_name(spec)
    with configuration_errors(spec, provider):
        if provider == "sentence-transformers":
            return ModelEmbedder(infer_embedding_model(spec))
        instance = build_provider(provider, base_url=base_url, api_key=api_key)
        kind = "openai" if provider == OPENAI_COMPATIBLE else provider
        return ModelEmbedder(
            infer_embedding_model(f"{kind}:{name}", provider_factory=lambda _name: instance)
        )


def check_embedder_name(spec: str) -> tuple[str, str]:
    """The provider and model of an embedder name ``resolve_embedder`` accepts; nothing is built.

    Raises ``ConfigurationError`` for a name without a known embedding provider.
    """
    provider, _, name = spec.partition(":")
    if not name or provider not in _EMBEDDING_PROVIDERS:
        raise ConfigurationError(
            f'Unknown embedder {spec!r}: expected "provider:model" with one of these providers: '
            + ", ".join(_EMBEDDING_PROVIDERS)
        )
    return provider, name


def _result_usage(result: Any) -> Usage:
    try:
        cost: float | None = float(result.cost().total_price)
    except (LookupError, ValueError, AssertionError):
        cost = None
    return Usage(input_tokens=result.usage.input_tokens, cost=cost, requests=1)
