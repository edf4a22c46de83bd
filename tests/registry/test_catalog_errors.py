"""Every fault a single file can have is reported as ``file:line: field: message``."""

from __future__ import annotations

import textwrap

import pytest

from runyard.registry.spec_file import read_spec_text

AGENT = "kind: agent\nid: a\nmodel: runyard:demo\n"


def errors_of(text: str) -> list[str]:
    entries, errors = read_spec_text(textwrap.dedent(text).lstrip("\n"), "f.yaml")
    assert not (entries and errors), "a file with errors yields no spec"
    return [str(error) for error in errors]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "kind: agent\nid: [a\n",
            "f.yaml:3: yaml: while parsing a flow sequence expected ',' or ']', but got '<stream end>'",
            id="yaml-syntax",
        ),
        pytest.param(
            AGENT + "model: openai:gpt-4o\n",
            "f.yaml:4: model: duplicate key 'model'",
            id="duplicate-key",
        ),
        pytest.param(
            "kind: agent\nid: a\nmodel: x\n  nested: 1\n",
            "f.yaml:4: yaml: mapping values are not allowed here",
            id="yaml-bad-indent",
        ),
        pytest.param(
            "x: !!python/object/apply:os.system ['true']\n",
            "f.yaml:1: yaml: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/object/apply:os.system'",
            id="unsafe-tag",
        ),
        pytest.param(
            "- kind: agent\n",
            "f.yaml:1: document: a catalog document is a mapping with a kind (agent, tool, routing)",
            id="not-a-mapping",
        ),
        pytest.param(
            "id: a\nmodel: runyard:demo\n",
            "f.yaml:1: kind: missing: one of agent, tool, routing",
            id="missing-kind",
        ),
        pytest.param(
            "id: a\nkind: agents\n",
            "f.yaml:2: kind: unknown kind 'agents': expected one of agent, tool, routing",
            id="unknown-kind",
        ),
        pytest.param(
            AGENT + "prompt: hi\n",
            "f.yaml:4: prompt: unknown field",
            id="unknown-field",
        ),
        pytest.param(
            AGENT + "limits:\n  max_iteration: 3\n",
            "f.yaml:5: limits.max_iteration: unknown field; did you mean `max_iterations`?",
            id="unknown-nested-field",
        ),
        pytest.param(
            "kind: agent\nid: a\n",
            "f.yaml:1: model: required field is missing",
            id="missing-field",
        ),
        pytest.param(
            "kind: agent\nid: -a\nmodel: runyard:demo\n",
            "f.yaml:2: id: String should match pattern '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'",
            id="bad-id",
        ),
        pytest.param(
            "kind: agent\nid: a\ntenant: a b\nmodel: runyard:demo\n",
            "f.yaml:3: tenant: String should match pattern '^[A-Za-z0-9._@-]{1,128}$'",
            id="bad-tenant",
        ),
        pytest.param(
            "kind: agent\nid: a\nmodel: gpt-4o\n",
            "f.yaml:3: model: Unknown model 'gpt-4o': expected \"provider:model\" with one of these providers: ",
            id="model-without-provider",
        ),
        pytest.param(
            "kind: agent\nid: a\nmodel: acme:big\n",
            "f.yaml:3: model: Unknown model 'acme:big': expected \"provider:model\"",
            id="unknown-provider",
        ),
        pytest.param(
            "kind: agent\nid: a\nmodel: test\n",
            "f.yaml:3: model: Unknown model 'test'",
            id="pydantic-ai-test-is-not-a-runyard-model",
        ),
        pytest.param(
            "kind: agent\nid: a\nmodel: runyard:smart\n",
            "f.yaml:3: model: Unknown runyard model 'smart'; the only one is \"runyard:demo\".",
            id="unknown-runyard-model",
        ),
        pytest.param(
            AGENT + "memory:\n  titles:\n    model: nope:x\n",
            "f.yaml:6: memory.titles.model: Unknown model 'nope:x'",
            id="unknown-title-model",
        ),
        pytest.param(
            AGENT + "memory:\n  semantic_recall: {embedder: anthropic:x}\n",
            "f.yaml:5: memory.semantic_recall.embedder: Unknown embedder 'anthropic:x'",
            id="unknown-embedder-provider",
        ),
        pytest.param(
            AGENT + "memory:\n  last_messages: -1\n",
            "f.yaml:5: memory.last_messages: Input should be greater than or equal to 0",
            id="negative-window",
        ),
        pytest.param(
            AGENT + "memory:\n  working_memory:\n    schema: {type: thing}\n",
            "f.yaml:6: memory.working_memory.schema: not a valid JSON Schema: 'thing' is not valid",
            id="bad-working-memory-schema",
        ),
        pytest.param(
            AGENT + "tools:\n  - calculator\n  - 7\n",
            "f.yaml:6: tools[1]: a tool is a name, or a mapping with name and parameters",
            id="tool-not-a-name",
        ),
        pytest.param(
            AGENT + "tools:\n  - name: calculator\n    params: {}\n",
            "f.yaml:6: tools[0].params: unknown field; did you mean `parameters`?",
            id="tool-unknown-field",
        ),
        pytest.param(
            AGENT + "tools:\n  - parameters: {}\n",
            "f.yaml:5: tools[0].name: required field is missing",
            id="tool-without-name",
        ),
        pytest.param(
            AGENT + "output_schema: {type: array}\n",
            'f.yaml:4: output_schema: an output schema must describe an object ("type": "object")',
            id="output-not-object",
        ),
        pytest.param(
            AGENT + "output_schema: {type: object, required: 3}\n",
            "f.yaml:4: output_schema: not a valid JSON Schema: 3 is not of type 'array'",
            id="output-not-a-schema",
        ),
        pytest.param(
            AGENT + "limits:\n  max_iterations: 0\n",
            "f.yaml:5: limits.max_iterations: Input should be greater than or equal to 1",
            id="zero-iterations",
        ),
        pytest.param(
            AGENT + "limits:\n  timeout_s: 0\n",
            "f.yaml:5: limits.timeout_s: Input should be greater than 0",
            id="zero-timeout",
        ),
        pytest.param(
            AGENT + "limits:\n  tool_call_concurrency: all\n",
            'f.yaml:5: limits.tool_call_concurrency: a positive integer, or "unlimited"',
            id="bad-concurrency",
        ),
        pytest.param(
            AGENT + "limits:\n  requests_per_minute: many\n",
            "f.yaml:5: limits.requests_per_minute: Input should be a valid integer",
            id="bad-rate",
        ),
        pytest.param(
            "kind: tool\nid: fetch\nparameters: {}\n",
            "f.yaml:1: factory: required field is missing",
            id="tool-without-factory",
        ),
    ],
)
def test_each_fault_names_its_file_line_and_field(text: str, expected: str) -> None:
    errors = errors_of(text)

    assert len(errors) == 1, errors
    assert errors[0].startswith(expected), errors[0]


ROUTING = """
kind: routing
default_agent: a
rules:
  - id: r
    agent: a
    when:
"""


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        pytest.param(
            "      {field: role, eq: admin}",
            "f.yaml:7: rules[0].when.field: unknown context field 'role': expected tenant, user, "
            "user_role, ui_page, flags.NAME or metadata.NAME",
            id="unknown-context-field",
        ),
        pytest.param(
            "      {field: user_role}",
            "f.yaml:6: rules[0].when: a field test needs exactly one operator of eq, ne, in, regex, "
            "exists, lt, le, gt, ge",
            id="no-operator",
        ),
        pytest.param(
            "      {field: user_role, eq: a, ne: b}",
            "f.yaml:6: rules[0].when: a field test needs exactly one operator of eq, ne, in, regex, "
            "exists, lt, le, gt, ge; it has eq, ne",
            id="two-operators",
        ),
        pytest.param(
            "      all:\n        - {field: ui_page, regex: '(unclosed'}",
            "f.yaml:8: rules[0].when.all[0].regex: not a valid regular expression: "
            "missing ), unterminated subpattern at position 0",
            id="regex-does-not-compile",
        ),
        pytest.param(
            "      any: []",
            "f.yaml:7: rules[0].when.any: List should have at least 1 item after validation, not 0",
            id="empty-any",
        ),
        pytest.param(
            "      not:\n        field: flags.beta\n        exists: maybe",
            "f.yaml:9: rules[0].when.not.exists: Input should be a valid boolean",
            id="bad-exists",
        ),
        pytest.param(
            "      {field: metadata.age, lt: ten}",
            "f.yaml:7: rules[0].when.lt: Input should be a valid integer",
            id="comparison-needs-a-number",
        ),
        pytest.param(
            "      {field: ui_page, in: /a}",
            "f.yaml:7: rules[0].when.in: Input should be a valid list",
            id="in-needs-a-list",
        ),
        pytest.param(
            "      {nothing: 1}",
            "f.yaml:6: rules[0].when: a condition is a mapping with exactly one of all, any, not or field",
            id="no-shape",
        ),
        pytest.param(
            "      {all: [], any: []}",
            "f.yaml:6: rules[0].when: a condition is a mapping with exactly one of all, any, not or field",
            id="two-shapes",
        ),
    ],
)
def test_each_condition_fault_is_located_inside_the_rule(when: str, expected: str) -> None:
    errors = errors_of(ROUTING + when + "\n")

    assert len(errors) == 1, errors
    assert errors[0].startswith(expected), errors[0]


def test_every_fault_of_a_file_is_reported_in_line_order() -> None:
    errors = errors_of(
        """
        kind: agent
        id: a
        model: nope:x
        limits: {max_iterations: 0}
        ---
        kind: routing
        default_agent: a
        extra: 1
        """
    )

    assert errors == [
        errors[0],
        "f.yaml:4: limits.max_iterations: Input should be greater than or equal to 1",
        "f.yaml:8: extra: unknown field",
    ]
    assert errors[0].startswith("f.yaml:3: model: Unknown model 'nope:x'")


def test_a_missing_field_of_a_nested_mapping_points_at_that_mapping() -> None:
    errors = errors_of(
        """
        kind: routing
        default_agent: a
        rules:
          - id: r
            when: {field: user, exists: true}
        """
    )

    assert errors == ["f.yaml:4: rules[0].agent: required field is missing"]


def test_empty_documents_and_comments_are_ignored() -> None:
    entries, errors = read_spec_text("# nothing yet\n---\n---\n" + AGENT, "f.yaml")

    assert errors == []
    assert [(entry.spec.id, entry.line) for entry in entries] == [("a", 4)]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            AGENT + "instruction: be brief\n",
            "f.yaml:4: instruction: unknown field; did you mean `instructions`?",
            id="agent-field",
        ),
        pytest.param(
            AGENT + "memory:\n  titels: true\n",
            "f.yaml:5: memory.titels: unknown field; did you mean `titles`?",
            id="nested-mapping",
        ),
        pytest.param(
            AGENT + "memory:\n  working_memory:\n    schemas: {type: object}\n",
            "f.yaml:6: memory.working_memory.schemas: unknown field; did you mean `schema`?",
            id="alias",
        ),
        pytest.param(
            ROUTING.replace("    when:\n", "    when: {field: user, exists: true}\n    agnet: b\n"),
            "f.yaml:7: rules[0].agnet: unknown field; did you mean `agent`?",
            id="list-item",
        ),
        pytest.param(
            AGENT + "prompt: hi\n",
            "f.yaml:4: prompt: unknown field",
            id="nothing-close",
        ),
    ],
)
def test_an_unknown_field_suggests_the_field_of_that_mapping_it_is_closest_to(
    text: str, expected: str
) -> None:
    assert errors_of(text) == [expected]
