"""How each memory tier is configured: small dataclasses whose defaults come from ``RUNYARD_*``.

A field left at its default reads the environment once, when the config is built
(``RUNYARD_LAST_MESSAGES``, ``RUNYARD_EMBEDDER_MODEL``, ``RUNYARD_SEMANTIC_RECALL_TOP_K``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_ai.models import Model

from runyard.config import get_settings
from runyard.models import Embedder

__all__ = ["MemoryScopeKind", "SemanticRecallConfig", "TitleConfig", "WorkingMemoryConfig"]

MemoryScopeKind = Literal["thread", "resource"]
"""``thread``: one conversation; ``resource``: every thread of the same user in the tenant."""


def _top_k() -> int:
    return get_settings().semantic_recall_top_k


@dataclass(frozen=True, slots=True)
class WorkingMemoryConfig:
    """A document the agent keeps about the user (or the thread) and rewrites with a tool.

    ``template`` is free-form markdown the agent fills in; ``schema`` (a pydantic model or a
    JSON Schema dict) makes the document structured JSON, and updates that do not match it are
    refused with a tool error the model reads. ``instruction`` replaces the default guidance
    shown above the document.
    """

    scope: MemoryScopeKind = "resource"
    template: str | None = None
    schema: type[BaseModel] | dict[str, Any] | None = None
    instruction: str | None = None


@dataclass(frozen=True, slots=True)
class SemanticRecallConfig:
    """Recall of similar past messages by embedding.

    Each of the ``top_k`` best matches comes with ``before`` messages ahead of it and ``after``
    messages behind it, from the match's own thread. ``scope="resource"`` searches every thread
    of the same user; ``"thread"`` only the current one. ``embedder`` is an ``Embedder`` or a
    ``"provider:model"`` name for ``runyard.models.resolve_embedder``.
    """

    embedder: Embedder | str
    top_k: int = field(default_factory=_top_k)
    before: int = 2
    after: int = 1
    scope: MemoryScopeKind = "thread"


@dataclass(frozen=True, slots=True)
class TitleConfig:
    """Thread titles from the first substantial user message; ``model`` None = the agent's."""

    model: str | Model | None = None
