"""``middleware:`` in an agent spec: the ordered list, its validation at load (file, line,
field), the version of an agent without it, and middleware found through entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_files import AGENT, error_lines, load, write

from middleware_plugin import install_middleware_plugin
from runyard.errors import ConfigurationError
from runyard.registry import (
    AgentSpec,
    ApprovalPolicyParameters,
    MiddlewareFactories,
    PiiRedactionParameters,
    content_hash,
    installed_middleware,
)

AGENT_A = AGENT.format(id="a")


def test_the_middleware_list_keeps_its_order_and_a_name_alone_is_enough(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a.yaml",
        AGENT_A
        + """\
middleware:
  - pii_redaction
  - name: approval_policy
    parameters:
      tool: "http_*"
  - name: approval_policy
    parameters:
      tool: transfer
      when: {field: amount, gt: 100}
  - name: summarisation
    parameters: {max_messages: 40, keep_last: 10, model: "openai:gpt-4o-mini"}
""",
    )
    loaded = load(tmp_path)

    assert loaded.errors == []
    entry = loaded.catalog.agent("a")
    assert entry is not None
    middleware = entry.spec.middleware
    assert [m.name for m in middleware] == [
        "pii_redaction",
        "approval_policy",
        "approval_policy",
        "summarisation",
    ]
    assert middleware[0].parameters == PiiRedactionParameters()
    policy = middleware[2].parameters
    assert isinstance(policy, ApprovalPolicyParameters)
    assert [(t.field, t.operator, t.operand) for t in policy.tests] == [("amount", "gt", 100)]


def test_every_fault_names_its_file_line_and_field(tmp_path: Path) -> None:
    write(
        tmp_path,
        "bad.yaml",
        AGENT_A
        + """\
middleware:
  - name: pii_redaction
    parameters: {kinds: [ssn]}
  - name: summarisation
    parameters: {keep_last: 3}
  - name: approval_policy
    parameters: {tool: x, tool_regex: y}
  - name: approval_policy
    parameters:
      tool: x
      when: {field: amount, gt: 1, lt: 9}
  - 7
""",
    )
    write(tmp_path, "unknown.yaml", AGENT.format(id="b") + "middleware: [pii_redaction, nope]\n")

    errors = error_lines(load(tmp_path))
    bad, unknown = str(tmp_path / "bad.yaml"), str(tmp_path / "unknown.yaml")

    assert errors[0].startswith(f"{bad}:6: middleware[0].parameters.kinds[0]: Input should be")
    assert errors[1] == f"{bad}:8: middleware[1].parameters: give max_messages, max_tokens or both"
    assert (
        errors[2] == f"{bad}:10: middleware[2].parameters: give exactly one of tool or tool_regex"
    )
    assert errors[3].startswith(
        f"{bad}:14: middleware[3].parameters.when: a field test needs exactly one operator"
    )
    assert errors[4].startswith(f"{bad}:15: middleware[4]: a middleware is a name, or a mapping")
    assert errors[5] == (
        f"{unknown}:4: middleware[1].name: unknown middleware 'nope': expected one of "
        "approval_policy, pii_redaction, summarisation"
    )
    assert len(errors) == 6


def test_an_agent_without_middleware_keeps_the_version_it_had_before_middleware() -> None:
    bare = AgentSpec.model_validate({"kind": "agent", "id": "a", "model": "runyard:demo"})
    listed = AgentSpec.model_validate(
        {"kind": "agent", "id": "a", "model": "runyard:demo", "middleware": ["pii_redaction"]}
    )

    assert "middleware" not in bare.model_dump()
    assert content_hash(bare) != content_hash(listed)
    assert listed.model_dump()["middleware"] == [
        {"name": "pii_redaction", "parameters": {"kinds": None, "patterns": {}, "hold_chars": 64}}
    ]


def test_an_installed_entry_point_is_a_name_agents_may_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = tmp_path / "catalog"
    write(
        catalog,
        "a.yaml",
        AGENT_A + "middleware:\n  - {name: acme_stamp, parameters: {mark: ACME-1}}\n",
    )
    assert "acme_stamp" not in installed_middleware()
    assert load(catalog).catalog.agents == {}

    install_middleware_plugin(tmp_path, monkeypatch)

    assert "acme_stamp" in installed_middleware()
    loaded = load(catalog)
    assert loaded.errors == []
    entry = loaded.catalog.agent("a")
    assert entry is not None
    assert entry.spec.middleware[0].parameters == {"mark": "ACME-1"}


def test_a_plugin_clashing_with_a_built_in_fails_discovery_naming_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_middleware_plugin(tmp_path, monkeypatch, name="pii_redaction")

    with pytest.raises(ConfigurationError, match=r"'pii_redaction' from acme-guard 1.0"):
        MiddlewareFactories.discover({"pii_redaction": object()})  # type: ignore[dict-item]
