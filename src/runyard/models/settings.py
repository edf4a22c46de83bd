"""Model settings a catalog spec may give an agent's model, checked against what its provider takes.

The names are pydantic-ai's (``ModelSettings``: ``temperature``, ``top_p``, ``max_tokens``,
``stop_sequences``, ``seed``, ``thinking``, …; and each provider's own, prefixed with its name:
``openai_reasoning_effort``, ``anthropic_thinking``, ``google_thinking_config``, …), so a setting
reaches the provider exactly as pydantic-ai documents it. A key the provider's settings type does
not have, or a value of the wrong type, is refused when the catalog loads, not when the first
request fails. A provider whose SDK is not installed is checked against the settings every
provider shares.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_ai.settings import ModelSettings

from runyard.models.providers import EXTRAS
from runyard.models.resolve import check_model_name

__all__ = ["check_model_settings"]

_SETTINGS_TYPES: dict[str, tuple[str, str]] = {
    "openai": ("pydantic_ai.models.openai", "OpenAIResponsesModelSettings"),
    "openai-responses": ("pydantic_ai.models.openai", "OpenAIResponsesModelSettings"),
    "anthropic": ("pydantic_ai.models.anthropic", "AnthropicModelSettings"),
    "google": ("pydantic_ai.models.google", "GoogleModelSettings"),
    "groq": ("pydantic_ai.models.groq", "GroqModelSettings"),
    "mistral": ("pydantic_ai.models.mistral", "MistralModelSettings"),
}
"""The settings type of each provider's model; the other providers of the OpenAI SDK speak
Chat Completions (``_CHAT``)."""

_CHAT = ("pydantic_ai.models.openai", "OpenAIChatModelSettings")


def check_model_settings(model: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` as ``model``'s provider takes them; ``ValueError`` naming the first key it
    refuses and why."""
    provider, _ = check_model_name(model)
    try:
        return dict(_adapter(provider).validate_python(dict(settings)))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "model_settings"
        if error["type"] == "extra_forbidden":
            raise ValueError(f"{key}: not a setting of {provider}'s models") from None
        raise ValueError(f"{key}: {error['msg']}") from None


@cache
def _adapter(provider: str) -> TypeAdapter[Any]:
    where = _SETTINGS_TYPES.get(provider) or (_CHAT if EXTRAS.get(provider) == "openai" else None)
    base: type = ModelSettings
    if where is not None:
        # The provider's SDK not installed: the settings every provider shares.
        with contextlib.suppress(ImportError):
            base = getattr(importlib.import_module(where[0]), where[1])
    # A strict twin of the provider's TypedDict: unknown keys refused, and settings whose type
    # is a class of the SDK (an httpx timeout) accepted as instances of it.
    strict = type(
        f"Strict{base.__name__}",
        (base,),
        {"__pydantic_config__": ConfigDict(extra="forbid", arbitrary_types_allowed=True)},
    )
    return TypeAdapter(strict)
