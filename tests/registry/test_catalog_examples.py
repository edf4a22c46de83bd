"""examples/agents loads with no error, and its assistant is the agent ``runyard serve`` runs."""

from __future__ import annotations

from pathlib import Path

from runyard.registry import load_catalog
from runyard.service import BUILTIN_TOOLS, catalog_tool_names
from runyard.service.catalog.default_agent import DEFAULT_AGENT, INSTRUCTIONS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


def test_the_examples_load_with_zero_errors() -> None:
    loaded = load_catalog(EXAMPLES, known_tools=catalog_tool_names())

    assert loaded.errors == []
    catalog = loaded.catalog
    assert sorted(catalog.agents, key=str) == [
        ("acme", "bookkeeper"),
        (None, "assistant"),
        (None, "bookkeeper"),
        (None, "palette"),  # LangGraph agents (tests/test_examples.py runs them)
        (None, "researcher"),
    ]
    assert set(catalog.routing) == {"acme", None}
    rules = catalog.routing[None].spec.rules
    assert {catalog.routing[None].spec.default_agent, *(rule.agent for rule in rules)} == {
        "assistant",
        "bookkeeper",
    }


def test_the_example_assistant_is_the_default_agent() -> None:
    assistant = load_catalog(EXAMPLES, known_tools=catalog_tool_names()).catalog.agent(
        DEFAULT_AGENT
    )

    assert assistant is not None
    assert assistant.spec.instructions == INSTRUCTIONS
    assert {tool.name for tool in assistant.spec.tools} == set(BUILTIN_TOOLS)


def test_the_second_agent_has_another_prompt_and_tool_set() -> None:
    catalog = load_catalog(EXAMPLES, known_tools=catalog_tool_names()).catalog
    assistant, bookkeeper = catalog.agent("assistant"), catalog.agent("bookkeeper")

    assert assistant is not None
    assert bookkeeper is not None
    assert bookkeeper.spec.instructions != assistant.spec.instructions
    assert {t.name for t in bookkeeper.spec.tools} == {"calculator", "notes", "exchange_rates"}
    assert {t.name for t in assistant.spec.tools}.isdisjoint({"notes", "exchange_rates"})
    rates = catalog.tool("exchange_rates")
    assert rates is not None
    assert rates.spec.factory == "http_request"


def _docs_example() -> str:
    text = (EXAMPLES.parents[1] / "docs" / "catalog.md").read_text(encoding="utf-8")
    return text.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_complete_example_of_the_docs_loads(tmp_path: Path) -> None:
    path = tmp_path / "assistant.yaml"
    path.write_text(_docs_example(), encoding="utf-8")

    loaded = load_catalog(tmp_path, known_tools=catalog_tool_names())

    assert loaded.errors == []
    assert len(loaded.catalog.agents) == 3
    assert len(loaded.catalog.tools) == 1
