"""Resolving "provider:model" strings: construction only, never the network."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.providers import infer_provider_class

from runyard.models import (
    KNOWN_PROVIDERS,
    ConfigurationError,
    DemoModel,
    model_label,
    resolve_model,
)

_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
}


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        *_KEYS.values(),
        "OPENAI_BASE_URL",
        "OLLAMA_BASE_URL",
        "RUNYARD_OPENAI_BASE_URL",
        "RUNYARD_OPENAI_API_KEY",
        "GEMINI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        ("openai:gpt-4o", "openai:gpt-4o"),
        ("openai-responses:gpt-4o", "openai:gpt-4o"),
        ("openai-chat:gpt-4o-mini", "openai-chat:gpt-4o-mini"),
        ("anthropic:claude-sonnet-4-5", "anthropic:claude-sonnet-4-5"),
        ("google:gemini-2.5-flash", "google:gemini-2.5-flash"),
        ("groq:llama-3.3-70b-versatile", "groq:llama-3.3-70b-versatile"),
        ("mistral:mistral-large-latest", "mistral:mistral-large-latest"),
    ],
)
def test_provider_strings_resolve_with_a_key_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, spec: str, label: str
) -> None:
    for provider, variable in _KEYS.items():
        monkeypatch.setenv(variable, f"fake-{provider}-key")
    model = resolve_model(spec)
    assert model_label(model) == label
    # The label names the same model again: same class (so the same API), same provider.
    again = resolve_model(label)
    assert (type(again), again.system, again.model_name) == (
        type(model),
        model.system,
        model.model_name,
    )


@pytest.mark.parametrize(("provider", "variable"), sorted(_KEYS.items()))
def test_a_missing_api_key_names_the_environment_variable(provider: str, variable: str) -> None:
    with pytest.raises(ConfigurationError, match=variable):
        resolve_model(f"{provider}:some-model")


def test_an_explicit_api_key_needs_no_environment() -> None:
    model = resolve_model("anthropic:claude-sonnet-4-5", api_key="fake")
    assert model.model_name == "claude-sonnet-4-5"


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="anthropic") as raised:
        resolve_model("nosuch:model")
    assert "nosuch" in str(raised.value)
    assert "openai-compatible" in str(raised.value)


def test_a_string_without_provider_is_rejected() -> None:
    with pytest.raises(ConfigurationError, match="provider:model"):
        resolve_model("gpt-4o")


@pytest.mark.parametrize(
    "provider", sorted(set(KNOWN_PROVIDERS) - {"runyard", "openai-compatible"})
)
def test_every_known_provider_is_one_pydantic_ai_knows(provider: str) -> None:
    missing: ImportError | None = None
    try:
        infer_provider_class(provider)
    except ImportError as exc:
        missing = exc
    # pydantic-ai may know the name but not find its SDK here: then it names the package to
    # install. Any other ImportError (a broken import inside pydantic-ai, say) is a failure.
    assert missing is None or str(missing).startswith("Please install the"), missing


def test_a_missing_sdk_names_the_runyard_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    for module in list(sys.modules):
        if module.startswith(("pydantic_ai.models.anthropic", "pydantic_ai.providers.anthropic")):
            monkeypatch.delitem(sys.modules, module)
    with pytest.raises(ConfigurationError, match=r"pip install 'runyard\[anthropic\]'"):
        resolve_model("anthropic:claude-sonnet-4-5")


def test_openai_compatible_uses_the_given_base_url() -> None:
    model = resolve_model("openai-compatible:local", base_url="http://127.0.0.1:9999/v1")
    assert model.base_url == "http://127.0.0.1:9999/v1/"
    assert model_label(model) == "openai-compatible:local"


@pytest.mark.parametrize("variable", ["RUNYARD_OPENAI_BASE_URL", "OPENAI_BASE_URL"])
def test_openai_compatible_reads_its_base_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "http://127.0.0.1:8123/v1")
    model = resolve_model("openai-compatible:qwen")
    assert model.base_url == "http://127.0.0.1:8123/v1/"


def test_openai_compatible_without_a_server_says_how_to_name_one() -> None:
    with pytest.raises(ConfigurationError, match="RUNYARD_OPENAI_BASE_URL"):
        resolve_model("openai-compatible:qwen")


def test_ollama_defaults_to_the_local_server() -> None:
    model = resolve_model("ollama:llama3.2")
    assert model.base_url == "http://127.0.0.1:11434/v1/"
    assert model_label(model) == "ollama:llama3.2"


def test_ollama_honours_a_given_base_url() -> None:
    model = resolve_model("ollama:llama3.2", base_url="http://gpu-box:11434/v1")
    assert model.base_url == "http://gpu-box:11434/v1/"


def test_a_missing_sdk_outside_runyard_extras_shows_pydantic_ais_hint() -> None:
    if _installed("cohere"):
        pytest.skip("cohere is installed here")
    with pytest.raises(ConfigurationError, match=r"pydantic-ai-slim\[cohere\]"):
        resolve_model("cohere:command-r", api_key="fake")


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def test_the_demo_model_resolves_offline() -> None:
    model = resolve_model("runyard:demo")
    assert isinstance(model, DemoModel)
    assert model_label(model) == "runyard:demo"
    with pytest.raises(ConfigurationError, match="runyard:demo"):
        resolve_model("runyard:other")


def test_a_model_instance_is_returned_as_it_is() -> None:
    model = FunctionModel(lambda messages, info: None, model_name="fn")  # type: ignore[arg-type, return-value]
    assert resolve_model(model) is model
    assert model_label(model) == "function:fn"
