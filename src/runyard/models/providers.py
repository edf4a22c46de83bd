"""Building a pydantic-ai provider from a runyard provider name, and naming what is missing when it fails.

Shared by chat models (``resolve``) and embedders (``embedders``). Constructing a provider
never touches the network.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic_ai.exceptions import UserError
from pydantic_ai.providers import Provider, infer_provider_class

from runyard.errors import ConfigurationError

__all__ = [
    "EXTRAS",
    "OLLAMA_DEFAULT_BASE_URL",
    "OPENAI_COMPATIBLE",
    "build_provider",
    "configuration_errors",
]

OLLAMA_DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1"
OPENAI_COMPATIBLE = "openai-compatible"

_OPENAI_SDK = (
    "openai",
    "openai-chat",
    "openai-responses",
    OPENAI_COMPATIBLE,
    "ollama",
    "alibaba",
    "azure",
    "cerebras",
    "deepseek",
    "fireworks",
    "github",
    "heroku",
    "litellm",
    "moonshotai",
    "nebius",
    "openrouter",
    "ovhcloud",
    "sambanova",
    "together",
    "vercel",
    "vllm",
)

EXTRAS: dict[str, str] = {
    **dict.fromkeys(_OPENAI_SDK, "openai"),
    "anthropic": "anthropic",
    "google": "google",
    "groq": "groq",
    "mistral": "mistral",
    "sentence-transformers": "sentence-transformers",
}
"""The runyard extra that installs each provider's SDK."""

_ENV_VAR_IN_MESSAGE = re.compile(r"`([A-Z][A-Z0-9_]+)` environment variable")


def build_provider(name: str, *, base_url: str | None, api_key: str | None) -> Provider[Any]:
    """The provider ``name`` stands for; ``base_url``/``api_key`` override its environment."""
    if name == OPENAI_COMPATIBLE:
        return _openai_compatible(base_url, api_key)
    if name == "ollama":
        base_url = base_url or os.environ.get("OLLAMA_BASE_URL") or OLLAMA_DEFAULT_BASE_URL
    kwargs = {k: v for k, v in (("base_url", base_url), ("api_key", api_key)) if v is not None}
    try:
        return infer_provider_class(name)(**kwargs)
    except TypeError as exc:
        raise ConfigurationError(
            f"Provider {name!r} does not accept {' or '.join(kwargs)}: {exc}"
        ) from exc


@contextmanager
def configuration_errors(spec: str, provider: str) -> Iterator[None]:
    """Turn a missing SDK or missing credentials into a ``ConfigurationError`` saying what to do."""
    try:
        yield
    except ImportError as exc:
        raise ConfigurationError(_missing_extra(spec, provider, exc)) from exc
    except UserError as exc:
        raise ConfigurationError(_missing_setting(spec, exc)) from exc


def _openai_compatible(base_url: str | None, api_key: str | None) -> Provider[Any]:
    from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider

    if base_url is None:
        base_url, api_key = _compatible_endpoint_from_env(api_key)
    return OpenAICompatibleProvider(OPENAI_COMPATIBLE, base_url=base_url, api_key=api_key)


def _compatible_endpoint_from_env(api_key: str | None) -> tuple[str, str | None]:
    # The key comes from the same family of variables as the URL, so an OpenAI key is only sent
    # to a server the user pointed OPENAI_BASE_URL at.
    for url_var, key_var in (
        ("RUNYARD_OPENAI_BASE_URL", "RUNYARD_OPENAI_API_KEY"),
        ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
    ):
        if url := os.environ.get(url_var):
            return url, api_key or os.environ.get(key_var)
    raise ConfigurationError(
        f'"{OPENAI_COMPATIBLE}:NAME" needs a server: pass base_url=... or set '
        "RUNYARD_OPENAI_BASE_URL (or OPENAI_BASE_URL)."
    )


def _missing_extra(spec: str, provider: str, exc: ImportError) -> str:
    extra = EXTRAS.get(provider)
    if extra is None:
        return f"{spec!r} needs an SDK that is not installed: {exc}"
    return f"{spec!r} needs the {extra} SDK: pip install 'runyard[{extra}]'"


def _missing_setting(spec: str, exc: UserError) -> str:
    match = _ENV_VAR_IN_MESSAGE.search(str(exc))
    if match is None:
        return f"Cannot set up {spec!r}: {exc}"
    variable = match.group(1)
    argument = "base_url" if variable.endswith("BASE_URL") else "api_key"
    return f"{spec!r} needs {variable}: set that environment variable or pass {argument}=..."
