"""Helpers for testing code built on runyard: a scripted model and a deterministic embedder.

Nothing here calls a provider or downloads anything.
"""

from runyard.testing.hash_embedder import HashEmbedder
from runyard.testing.scripted import (
    ScriptedModel,
    ScriptExhaustedError,
    ToolCall,
    Turn,
    TurnUsage,
    call,
    scripted_model,
    text,
)

__all__ = [
    "HashEmbedder",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ToolCall",
    "Turn",
    "TurnUsage",
    "call",
    "scripted_model",
    "text",
]
