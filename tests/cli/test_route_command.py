"""``runyard route``: the decision and a row per rule, and exit 1 for a bad context or catalog."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runyard.cli import app
from runyard.registry import load_catalog
from runyard.service import catalog_tool_names

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
ROUTING = EXAMPLES / "routing.yaml"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["route", *args], env={"COLUMNS": "200"})
    return result.exit_code, result.output


def version(agent_id: str, tenant: str | None = None) -> str:
    entry = load_catalog(EXAMPLES, known_tools=catalog_tool_names()).catalog.agent(agent_id, tenant)
    assert entry is not None
    return entry.version


def table_rows(output: str) -> list[list[str]]:
    """The cells of the rules table, one list per printed line."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in output.splitlines()
        if line.startswith("│")
    ]


def test_a_matching_rule_prints_the_decision_and_each_rule() -> None:
    code, output = run("--tenant", "acme", "--context", '{"user_role": "finance"}', str(EXAMPLES))

    assert code == 0, output
    assert output.splitlines()[:5] == [
        "agent    bookkeeper",
        f"version  {version('bookkeeper', 'acme')}",
        "rule     acme-finance",
        "reason   rule (the first rule that matched)",
        f"routing  tenant acme ({ROUTING}:21)",
    ]
    assert table_rows(output) == [
        [
            "1",
            "acme-finance",
            "0",
            "bookkeeper",
            "matched",
            'when: user_role = "finance" is one of ["finance", "accounting"]',
        ]
    ]


def test_no_match_prints_the_default_and_why_every_rule_failed() -> None:
    context = '{"user_role": "finance", "ui_page": "/home", "flags": {"classic_ui": true}}'

    code, output = run("--context", context, str(EXAMPLES))

    assert code == 0, output
    assert output.splitlines()[:5] == [
        "agent    assistant",
        f"version  {version('assistant')}",
        "rule     -",
        "reason   default (no rule matched)",
        f"routing  shared ({ROUTING}:2)",
    ]
    assert table_rows(output) == [
        [
            "1",
            "expenses-page",
            "10",
            "bookkeeper",
            "no-match",
            'when.any[0]: ui_page = "/home" does not match regex "^/(billing|expenses)"',
        ],
        ["", "", "", "", "", "when.any[1]: metadata.topic is absent"],
        [
            "2",
            "finance-team",
            "5",
            "bookkeeper",
            "no-match",
            "when.all[1].not: flags.classic_ui = true is present",
        ],
    ]


def test_an_explicit_agent_skips_the_rules_and_a_pinned_version_is_shown(
    tmp_path: Path,
) -> None:
    pinned = "ab" * 32
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        textwrap.dedent(f"""
            kind: agent
            id: a
            model: runyard:demo
            ---
            kind: agent
            id: b
            model: runyard:demo
            ---
            kind: routing
            default_agent: a
            rules:
              - {{id: beta, when: {{field: flags.beta, eq: true}}, agent: b, version: "{pinned}"}}
            """),
        encoding="utf-8",
    )

    code, output = run("--context", '{"flags": {"beta": true}}', str(catalog))
    assert code == 0, output
    assert output.splitlines()[1] == f"version  {pinned} (pinned by the rule)"
    assert table_rows(output)[0][3] == f"b@{pinned[:12]}"

    code, output = run("--agent", "b", "--context", '{"flags": {"beta": true}}', str(catalog))
    assert code == 0, output
    assert output.splitlines()[2:4] == [
        "rule     -",
        "reason   explicit (the request named the agent)",
    ]
    assert [row[4] for row in table_rows(output)] == ["skipped"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--context", '{"user_role": '],
            "--context is not valid JSON: Expecting value: line 1 column 15 (char 14)",
        ),
        (
            ["--context", '["finance"]'],
            '--context must be a JSON object, e.g. \'{"user_role": "finance"}\'',
        ),
        (
            ["--context", '{"tenant": "acme"}'],
            "--context: give the tenant with --tenant, not in the context",
        ),
        (
            ["--context", '{"user_role": 3, "flags": {"a": 1}, "page": "/"}'],
            "--context: user_role: Input should be a valid string\n"
            "--context: page: Extra inputs are not permitted",
        ),
        (
            ["--tenant", "a b"],
            "--tenant: String should match pattern '^[A-Za-z0-9._@-]{1,128}$'",
        ),
        (["--agent", "nope"], "Cannot route: no agent 'nope' for tenant 'default'."),
    ],
)
def test_a_bad_context_or_an_unknown_agent_exits_1_with_one_message(
    args: list[str], message: str
) -> None:
    assert run(*args, str(EXAMPLES)) == (1, message + "\n")


def test_a_catalog_with_a_rejected_file_exits_1_with_its_errors(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("kind: agent\nid: a\nmodel: runyard:demo\n", "utf-8")
    (tmp_path / "r.yaml").write_text("kind: routing\ndefault_agent: a\n", "utf-8")
    bad = tmp_path / "b.yaml"
    bad.write_text("kind: agent\nid: b\n", "utf-8")

    assert run(str(tmp_path)) == (
        1,
        f"{bad}:1: model: required field is missing\n"
        + f"{tmp_path}: 1 file(s) rejected; fix them before routing "
        f"(runyard agents validate {tmp_path})\n",
    )


def test_a_catalog_without_routing_exits_1_unless_the_agent_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("kind: agent\nid: a\nmodel: runyard:demo\n", "utf-8")

    code, output = run(str(tmp_path))
    assert (code, output) == (
        1,
        "Cannot route: no routing for tenant 'default' and no shared one: add a kind: routing "
        "document to the catalog, or name the agent.\n",
    )

    code, output = run("--agent", "a", str(tmp_path))
    assert code == 0, output
    assert output.splitlines()[4] == "routing  none for tenant default"
    assert table_rows(output) == []


def test_the_catalog_defaults_to_the_agents_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run() == (1, "No catalog at agents: pass a directory of YAML files or one file.\n")

    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "all.yaml").write_text(
        "kind: agent\nid: here\nmodel: runyard:demo\n---\nkind: routing\ndefault_agent: here\n",
        "utf-8",
    )
    code, output = run()
    assert code == 0, output
    assert output.startswith("agent    here\n")
