"""``compile_agent`` builds a spec's middleware in order — built-ins and an entry point's — and
an ``approval_policy``'s ``when`` tests tool arguments with the routing operators."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from middleware_plugin import install_middleware_plugin
from runyard import Agent, ApprovalPolicy, PiiRedaction, Summarisation
from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.registry import load_catalog
from runyard.service import BUILTIN_MIDDLEWARE, BUILTIN_TOOLS, catalog_middleware, compile_agent
from runyard.storage import Store
from runyard.testing import ScriptedModel, scripted_model, text

AGENT = """\
kind: agent
id: a
model: openai:gpt-4o-mini
middleware:
{middleware}
"""


@pytest.fixture(autouse=True)
def fresh_discovery() -> Iterator[None]:
    """Entry points are discovered once per process; each test installs its own."""
    catalog_middleware.cache_clear()
    yield
    catalog_middleware.cache_clear()


def compiled(
    tmp_path: Path, store: Store, middleware: str, models: dict[str, ScriptedModel]
) -> Agent:
    (tmp_path / "a.yaml").write_text(AGENT.format(middleware=middleware))
    load = load_catalog(tmp_path / "a.yaml", known_tools=BUILTIN_TOOLS)
    assert load.errors == []
    entry = load.catalog.agent("a")
    assert entry is not None
    return compile_agent(entry, store, Settings(), models.__getitem__, tools=[])


def test_the_built_ins_are_built_in_the_listed_order(tmp_path: Path, store: Store) -> None:
    summariser = scripted_model([])
    agent = compiled(
        tmp_path,
        store,
        """\
  - pii_redaction
  - {name: approval_policy, parameters: {tool: "http_*"}}
  - name: summarisation
    parameters: {max_messages: 20, model: "anthropic:claude-sonnet-4-5"}""",
        {"openai:gpt-4o-mini": scripted_model([]), "anthropic:claude-sonnet-4-5": summariser},
    )

    built = agent._spec.middleware.middleware
    assert [type(m) for m in built] == [PiiRedaction, ApprovalPolicy, Summarisation]
    summarisation = built[2]
    assert isinstance(summarisation, Summarisation)
    assert summarisation.model is summariser
    assert set(BUILTIN_MIDDLEWARE) == {"pii_redaction", "approval_policy", "summarisation"}


def test_a_when_over_arguments_uses_the_routing_operators(tmp_path: Path, store: Store) -> None:
    agent = compiled(
        tmp_path,
        store,
        """\
  - name: approval_policy
    parameters:
      tool: transfer
      when:
        - {field: amount, ge: 100}
        - {field: to.country, ne: DE}""",
        {"openai:gpt-4o-mini": scripted_model([])},
    )
    policy = agent._spec.middleware.middleware[0]
    assert isinstance(policy, ApprovalPolicy)
    assert policy.when is not None

    assert policy.when({"amount": 100, "to": {"country": "FR"}})
    assert not policy.when({"amount": 99, "to": {"country": "FR"}})
    assert not policy.when({"amount": 500, "to": {"country": "DE"}})
    assert policy.when({"amount": 500})  # an absent field differs from "DE"
    assert not policy.when({"amount": "500", "to": {"country": "FR"}})  # a string is no number


async def test_an_entry_point_middleware_is_built_with_its_parameters_and_runs(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_middleware_plugin(tmp_path, monkeypatch)
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    model = scripted_model([text("Welcome to ACME support")])
    agent = compiled(
        catalog,
        store,
        "  - {name: acme_stamp, parameters: {mark: Globex}}",
        {"openai:gpt-4o-mini": model},
    )

    stream = await agent.stream("hi")
    deltas = [c.delta async for c in stream if c.type == "text-delta"]

    assert "".join(deltas) == "Welcome to Globex support"


def test_a_plugin_refusing_its_parameters_names_the_agents_file_and_line(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_middleware_plugin(tmp_path, monkeypatch)
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    with pytest.raises(ConfigurationError) as failure:
        compiled(catalog, store, "  - acme_stamp", {"openai:gpt-4o-mini": scripted_model([])})

    assert str(failure.value) == (
        f"{catalog / 'a.yaml'}:1: agent 'a': middleware 'acme_stamp': mark is required"
    )
