"""Specs are strict, plain data, and each version's content hash depends on meaning only."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from runyard.registry import (
    AgentSpec,
    AllOf,
    FieldTest,
    Not,
    RoutingSpec,
    ToolInstanceSpec,
    canonical_json,
    content_hash,
)

MINIMAL = {"kind": "agent", "id": "a", "model": "runyard:demo"}


def test_the_hash_of_a_spec_is_pinned_so_versions_survive_restarts_and_releases() -> None:
    spec = AgentSpec.model_validate(
        MINIMAL | {"instructions": "Be brief.", "tools": ["calculator"]}
    )

    assert canonical_json(spec) == (
        '{"description":"","id":"a","instructions":"Be brief.","kind":"agent",'
        '"limits":{"max_iterations":20,"max_output_tokens":null,"requests_per_minute":null,'
        '"timeout_s":null,"tool_call_concurrency":1,"tool_timeout_s":null},'
        '"memory":{"last_messages":null,"observational":null,"semantic_recall":null,'
        '"titles":null,"working_memory":null},"model":"runyard:demo","output_schema":null,'
        '"sub_agents":[],"tenant":null,"tools":[{"name":"calculator","parameters":{}}]}'
    )
    assert content_hash(spec) == (
        "e8c6c055aab2ff1d55960aa3da125d6b87bf8ada48c29ca0f6fcfb41a4463db9"
    )


def test_the_same_meaning_written_differently_has_the_same_hash() -> None:
    short = AgentSpec.model_validate(
        MINIMAL | {"tools": ["calculator"], "memory": {"titles": False}}
    )
    spelled_out = AgentSpec.model_validate(
        {
            "limits": {"max_iterations": 20, "tool_call_concurrency": 1},
            "tools": [{"name": "calculator", "parameters": {}}],
            **MINIMAL,
        }
    )

    assert short == spelled_out
    assert content_hash(short) == content_hash(spelled_out)


@pytest.mark.parametrize(
    "change",
    [
        {"instructions": "Be verbose."},
        {"tools": ["calculator", "plan"]},
        {"tenant": "acme"},
        {"limits": {"max_iterations": 3}},
        {"memory": {"titles": True}},
        {"model_settings": {"temperature": 0.2}},
        {"fallback_models": ["openai:gpt-4o-mini"]},
    ],
)
def test_any_change_of_meaning_changes_the_hash(change: dict[str, object]) -> None:
    base = AgentSpec.model_validate(MINIMAL)

    assert content_hash(AgentSpec.model_validate(MINIMAL | change)) != content_hash(base)


@pytest.mark.parametrize(
    "spec",
    [
        AgentSpec.model_validate(
            MINIMAL
            | {
                "memory": {
                    "working_memory": {"schema": {"type": "object"}},
                    "semantic_recall": True,
                },
                "output_schema": {"type": "object", "properties": {"total": {"type": "number"}}},
                "limits": {"tool_call_concurrency": "unlimited"},
            }
        ),
        ToolInstanceSpec.model_validate(
            {"kind": "tool", "id": "fetch", "factory": "http_request", "parameters": {"a": [1]}}
        ),
        RoutingSpec.model_validate(
            {
                "kind": "routing",
                "default_agent": "a",
                "rules": [
                    {
                        "id": "r",
                        "agent": "a",
                        "when": {
                            "all": [
                                {"field": "flags.beta", "eq": None},
                                {"not": {"field": "metadata.plan", "in": ["free"]}},
                            ]
                        },
                    }
                ],
            }
        ),
    ],
)
def test_a_dumped_spec_validates_back_to_the_same_version(
    spec: AgentSpec | ToolInstanceSpec | RoutingSpec,
) -> None:
    again = type(spec).model_validate(spec.model_dump(mode="json", by_alias=True))

    assert again == spec
    assert content_hash(again) == content_hash(spec)


def test_fallback_models_must_be_known_and_take_the_agents_model_settings() -> None:
    with pytest.raises(ValidationError, match=r"fallback_models\.0"):
        AgentSpec.model_validate(MINIMAL | {"fallback_models": ["nowhere:model"]})
    with pytest.raises(ValidationError, match="not a setting of anthropic"):
        AgentSpec.model_validate(
            MINIMAL
            | {
                "model": "openai:gpt-4o-mini",
                "model_settings": {"openai_reasoning_effort": "low"},
                "fallback_models": ["anthropic:claude-sonnet-4-5"],
            }
        )


def test_a_field_test_keeps_only_its_operator_so_eq_null_differs_from_ne_null() -> None:
    eq_null = FieldTest.model_validate({"field": "user", "eq": None})
    ne_null = FieldTest.model_validate({"field": "user", "ne": None})

    assert eq_null.model_dump(by_alias=True) == {"field": "user", "eq": None}
    assert (eq_null.operator, eq_null.operand) == ("eq", None)
    assert (ne_null.operator, ne_null.operand) == ("ne", None)
    assert eq_null != ne_null
    membership = FieldTest.model_validate({"field": "ui_page", "in": ["/a", "/b"]})
    assert (membership.operator, membership.operand) == ("in", ["/a", "/b"])


def test_conditions_nest_all_any_and_not() -> None:
    rule = RoutingSpec.model_validate(
        {
            "kind": "routing",
            "default_agent": "a",
            "rules": [
                {
                    "id": "r",
                    "agent": "a",
                    "when": {
                        "all": [
                            {"any": [{"field": "tenant", "eq": "t"}]},
                            {"not": {"field": "user", "exists": True}},
                        ]
                    },
                }
            ],
        }
    ).rules[0]

    assert isinstance(rule.when, AllOf)
    assert isinstance(rule.when.all[1], Not)
    assert rule.priority == 0
    assert rule.version is None


def test_specs_are_frozen() -> None:
    spec = AgentSpec.model_validate(MINIMAL)

    with pytest.raises(ValidationError):
        spec.id = "b"  # type: ignore[misc]
