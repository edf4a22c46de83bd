"""The ``Memory`` of a catalog agent: its spec's ``memory`` section, with the server's settings
filling what the spec leaves out (docs/catalog.md, "Serving a catalog").

The spec decides which tiers are on; ``RUNYARD_*`` settings only supply values it omits (the
recent window, the embedder, recall matches, observer model and thresholds). Only the
``Settings`` given are read, never the environment behind them.

``titles`` is not a tier here: the service names threads itself (``RunSegment``, with the
agent's ``title_model``), so the compiler passes the spec's title model to the agent instead; a
second, SDK-side title task would race the service's writes.
"""

from __future__ import annotations

from runyard.config import Settings
from runyard.memory import (
    Memory,
    ObservationalConfig,
    SemanticRecallConfig,
    WorkingMemoryConfig,
)
from runyard.registry import MemorySpec, ObservationalSpec, SemanticRecallSpec
from runyard.storage import Store

__all__ = ["catalog_memory"]


def catalog_memory(spec: MemorySpec, store: Store, settings: Settings) -> Memory:
    """A ``Memory`` in ``store`` with the tiers ``spec`` turns on (its owner calls ``aclose``)."""
    working = spec.working_memory
    return Memory(
        store,
        last_messages=settings.last_messages if spec.last_messages is None else spec.last_messages,
        semantic_recall=_recall(spec.semantic_recall, settings),
        working_memory=WorkingMemoryConfig(
            scope=working.scope,
            template=working.template,
            schema=working.json_schema,
            instruction=working.instruction,
        )
        if working is not None
        else False,
        observational=_observational(spec.observational, settings),
    )


def _recall(spec: SemanticRecallSpec | None, settings: Settings) -> SemanticRecallConfig | bool:
    """Recall stays off when neither the spec nor the server names an embedder."""
    embedder = (spec.embedder if spec is not None else None) or settings.embedder_model
    if spec is None or not embedder:
        return False
    return SemanticRecallConfig(
        embedder=embedder,
        top_k=spec.top_k or settings.semantic_recall_top_k,
        before=spec.before,
        after=spec.after,
        scope=spec.scope,
    )


def _observational(
    spec: ObservationalSpec | None, settings: Settings
) -> ObservationalConfig | bool:
    if spec is None:
        return False
    return ObservationalConfig(
        model=spec.model or settings.observer_model or None,
        observer_message_tokens=spec.observer_message_tokens or settings.observer_message_tokens,
        reflector_observation_tokens=spec.reflector_observation_tokens
        or settings.reflector_observation_tokens,
    )
