"""The memory a served agent gets: every tier the settings ask for, in the server's store.

One place decides it, so ``runyard serve``'s agents and its start-up report cannot disagree:
semantic recall follows ``RUNYARD_EMBEDDER_MODEL`` (empty = off) and observational memory
``RUNYARD_OBSERVATIONAL_MEMORY``, tuned by ``RUNYARD_OBSERVER_MODEL`` (empty = the agent's
model), ``RUNYARD_OBSERVER_MESSAGE_TOKENS`` and ``RUNYARD_REFLECTOR_OBSERVATION_TOKENS``. Only
the ``Settings`` given are read, never the environment behind them.
"""

from __future__ import annotations

from runyard.config import Settings
from runyard.memory import Memory, ObservationalConfig, SemanticRecallConfig
from runyard.storage import Store

__all__ = ["served_memory"]


def served_memory(store: Store, settings: Settings) -> Memory:
    """A ``Memory`` in ``store`` with the tiers ``settings`` turn on (its owner calls ``aclose``)."""
    recall = (
        SemanticRecallConfig(embedder=settings.embedder_model, top_k=settings.semantic_recall_top_k)
        if settings.embedder_model
        else False
    )
    observational = (
        ObservationalConfig(
            model=settings.observer_model or None,
            observer_message_tokens=settings.observer_message_tokens,
            reflector_observation_tokens=settings.reflector_observation_tokens,
        )
        if settings.observational_memory
        else False
    )
    return Memory(
        store,
        last_messages=settings.last_messages,
        semantic_recall=recall,
        observational=observational,
    )
