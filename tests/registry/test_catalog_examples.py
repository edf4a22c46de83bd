"""examples/agents loads with no error, and its assistant is the agent ``runyard serve`` runs."""

from __future__ import annotations

from pathlib import Path

from runyard.cli.agents import BUILTIN_TOOL_NAMES
from runyard.registry import load_catalog
from runyard.service.default_agent import DEFAULT_AGENT, INSTRUCTIONS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


def test_the_examples_load_with_zero_errors() -> None:
    loaded = load_catalog(EXAMPLES, known_tools=BUILTIN_TOOL_NAMES)

    assert loaded.errors == []
    catalog = loaded.catalog
    assert sorted(catalog.agents, key=str) == [
        ("acme", "bookkeeper"),
        (None, "assistant"),
        (None, "bookkeeper"),
    ]
    assert set(catalog.routing) == {"acme", None}
    rules = catalog.routing[None].spec.rules
    assert {catalog.routing[None].spec.default_agent, *(rule.agent for rule in rules)} == {
        "assistant",
        "bookkeeper",
    }


def test_the_example_assistant_is_the_default_agent() -> None:
    assistant = load_catalog(EXAMPLES, known_tools=BUILTIN_TOOL_NAMES).catalog.agent(DEFAULT_AGENT)

    assert assistant is not None
    assert assistant.spec.instructions == INSTRUCTIONS
    assert {tool.name for tool in assistant.spec.tools} == set(BUILTIN_TOOL_NAMES)


def test_the_second_agent_has_another_prompt_and_tool_set() -> None:
    catalog = load_catalog(EXAMPLES, known_tools=BUILTIN_TOOL_NAMES).catalog
    assistant, bookkeeper = catalog.agent("assistant"), catalog.agent("bookkeeper")

    assert assistant is not None
    assert bookkeeper is not None
    assert bookkeeper.spec.instructions != assistant.spec.instructions
    assert {t.name for t in bookkeeper.spec.tools} < {t.name for t in assistant.spec.tools}


def _docs_example() -> str:
    text = (EXAMPLES.parents[1] / "docs" / "catalog.md").read_text(encoding="utf-8")
    return text.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_complete_example_of_the_docs_loads_once_http_request_exists(tmp_path: Path) -> None:
    path = tmp_path / "assistant.yaml"
    path.write_text(_docs_example(), encoding="utf-8")

    loaded = load_catalog(tmp_path, known_tools=[*BUILTIN_TOOL_NAMES, "http_request"])
    today = load_catalog(tmp_path, known_tools=BUILTIN_TOOL_NAMES)

    assert loaded.errors == []
    assert len(loaded.catalog.agents) == 3
    assert [error.message for error in today.errors] == [
        f"unknown tool factory 'http_request': expected one of {', '.join(BUILTIN_TOOL_NAMES)}"
    ]
