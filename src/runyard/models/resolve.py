"""Turning a ``"provider:model"`` string into a pydantic-ai ``Model``, without touching the network.

Resolution only constructs objects: it never sends a request, so a wrong key or an unreachable
server shows up on the first call, not here. Every failure that *can* be seen here (an unknown
provider, a missing extra, a missing API key or base URL) is a ``ConfigurationError`` that says
what to do.
"""

from __future__ import annotations

from pydantic_ai.models import Model, infer_model

from runyard.errors import ConfigurationError
from runyard.models.demo import DemoModel
from runyard.models.providers import (
    EXTRAS,
    OPENAI_COMPATIBLE,
    build_provider,
    configuration_errors,
)

__all__ = ["KNOWN_PROVIDERS", "check_model_name", "model_label", "resolve_model"]

KNOWN_PROVIDERS: tuple[str, ...] = (
    "runyard",
    *(name for name in EXTRAS if name != "sentence-transformers"),
    "bedrock",
    "cohere",
    "huggingface",
    "xai",
)
"""Every provider prefix ``resolve_model`` accepts."""


def resolve_model(
    model: str | Model, *, base_url: str | None = None, api_key: str | None = None
) -> Model:
    """The model a ``"provider:model"`` string names; a ``Model`` instance is returned as it is.

    ``base_url`` and ``api_key`` override what the provider would read from its environment.
    Raises ``ConfigurationError`` for an unknown provider, a missing extra or missing credentials.
    """
    if isinstance(model, Model):
        return model
    provider, name = check_model_name(model)
    if provider == "runyard":
        return DemoModel()
    with configuration_errors(model, provider):
        instance = build_provider(provider, base_url=base_url, api_key=api_key)
        # An OpenAI-compatible server speaks Chat Completions, pydantic-ai's "openai-chat".
        kind = "openai-chat" if provider == OPENAI_COMPATIBLE else provider
        return infer_model(f"{kind}:{name}", provider_factory=lambda _name: instance)


def check_model_name(model: str) -> tuple[str, str]:
    """The provider and model of a ``"provider:model"`` string that ``resolve_model`` accepts.

    Checks the name only (nothing is built, no credential is read), so a catalog can refuse an
    unknown provider before any agent is made. Raises ``ConfigurationError`` otherwise.
    """
    provider, _, name = model.partition(":")
    if not name or provider not in KNOWN_PROVIDERS:
        raise ConfigurationError(
            f'Unknown model {model!r}: expected "provider:model" with one of these providers: '
            + ", ".join(KNOWN_PROVIDERS)
        )
    if provider == "runyard" and name != "demo":
        raise ConfigurationError(f'Unknown runyard model {name!r}; the only one is "runyard:demo".')
    return provider, name


def model_label(model: Model) -> str:
    """The ``"provider:model"`` string that resolves to this same model, for display and results.

    pydantic-ai's Chat Completions and Responses models for OpenAI share the system ``"openai"``,
    and ``"openai:"`` names the Responses API, so a Chat Completions model is labelled
    ``"openai-chat:gpt-4o"``: the label says which API the agent really calls.
    """
    prefix = f"{_label_provider(model)}:"
    name = model.model_name
    return name if name.startswith(prefix) else prefix + name


def _label_provider(model: Model) -> str:
    if model.system == "openai" and _speaks_chat_completions(model):
        return "openai-chat"
    return model.system


def _speaks_chat_completions(model: Model) -> bool:
    try:
        from pydantic_ai.models.openai import OpenAIChatModel
    except ImportError:  # without the openai extra no such model can exist
        return False
    return isinstance(model, OpenAIChatModel)
