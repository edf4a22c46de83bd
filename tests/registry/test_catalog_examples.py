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
    assert [tool.name for tool in assistant.spec.tools] == list(BUILTIN_TOOL_NAMES)


def test_the_second_agent_has_another_prompt_and_tool_set() -> None:
    catalog = load_catalog(EXAMPLES, known_tools=BUILTIN_TOOL_NAMES).catalog
    assistant, bookkeeper = catalog.agent("assistant"), catalog.agent("bookkeeper")

    assert assistant is not None
    assert bookkeeper is not None
    assert bookkeeper.spec.instructions != assistant.spec.instructions
    assert {t.name for t in bookkeeper.spec.tools} < {t.name for t in assistant.spec.tools}
