"""``runyard agents validate|list|show``: exit codes and what they print."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runyard.cli import app
from tool_plugins import Install

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["agents", *args])
    return result.exit_code, result.output


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def test_validate_a_good_catalog_exits_0_with_a_summary() -> None:
    code, output = run("validate", str(EXAMPLES))

    assert code == 0, output
    assert output == f"{EXAMPLES}: valid, 5 agent(s), 2 tool(s), 2 routing(s)\n"


def test_validate_prints_each_error_as_file_line_field_message_and_exits_1(tmp_path: Path) -> None:
    good = write(tmp_path / "a.yaml", "kind: agent\nid: a\nmodel: runyard:demo\n")
    bad = write(
        tmp_path / "b.yaml",
        """
        kind: agent
        id: b
        model: runyard:demo
        tools: [calculator, web_search]
        limits: {max_iterations: 0}
        """,
    )
    broken = write(tmp_path / "c.yaml", "kind: [agent\n")

    code, output = run("validate", str(tmp_path))

    assert code == 1
    assert output.splitlines() == [
        f"{bad}:5: limits.max_iterations: Input should be greater than or equal to 1",
        f"{broken}:2: yaml: while parsing a flow sequence expected ',' or ']', but got '<stream end>'",
        f"{tmp_path}: 2 file(s) rejected; valid: 1 agent(s), 0 tool(s), 0 routing(s)",
    ]
    assert str(good) not in output


def test_validate_reports_reference_errors_too(tmp_path: Path) -> None:
    path = write(
        tmp_path / "a.yaml", "kind: agent\nid: a\nmodel: runyard:demo\ntools: [web_search]\n"
    )

    code, output = run("validate", str(path))

    assert code == 1
    assert output.startswith(f"{path}:4: tools[0].name: unknown tool 'web_search': ")


def test_validate_knows_the_factories_of_installed_plugins_and_the_catalogs_tools(
    tmp_path: Path, install: Install
) -> None:
    path = write(
        tmp_path / "a.yaml",
        """
        kind: agent
        id: a
        model: runyard:demo
        tools: [{name: weather, parameters: {city: Oslo}}, fetch, {name: notes, grant: [list_notes]}]
        ---
        kind: tool
        id: fetch
        factory: http_request
        """,
    )
    assert run("validate", str(path))[0] == 1  # no weather plugin yet

    plugin = "class Weather:\n    def build(self, context, deps, exec_ctx): ...\n"
    install("runyard-weather", "weather = runyard_weather:Weather", plugin)
    code, output = run("validate", str(path))

    assert (code, output) == (0, f"{path}: valid, 1 agent(s), 1 tool(s), 0 routing(s)\n")


def test_validate_exits_1_naming_a_plugin_that_does_not_load(
    tmp_path: Path, install: Install
) -> None:
    path = write(tmp_path / "a.yaml", "kind: agent\nid: a\nmodel: runyard:demo\n")
    install("runyard-broken", "broken = runyard_broken:Missing", "X = 1\n")

    code, output = run("validate", str(path))

    assert code == 1
    assert output.startswith(f"Cannot check {path}: tool factory from runyard-broken 1.0")


def test_validate_a_missing_path_exits_1(tmp_path: Path) -> None:
    code, output = run("validate", str(tmp_path / "nope"))

    assert code == 1
    assert (
        output
        == f"No catalog at {tmp_path / 'nope'}: pass a directory of YAML files or one file.\n"
    )


def test_list_shows_every_agent_with_tenant_model_tools_and_version() -> None:
    result = CliRunner().invoke(app, ["agents", "list", str(EXAMPLES)], env={"COLUMNS": "200"})
    output = result.output

    assert result.exit_code == 0
    rows = [line for line in output.splitlines() if "runyard:demo" in line]
    assert [row.split("│")[1:3] for row in rows] == [
        [" *      ", " assistant  "],
        [" *      ", " bookkeeper "],
        [" *      ", " palette    "],
        [" *      ", " researcher "],
        [" acme   ", " bookkeeper "],
    ]
    assert "calculator, list_notes, save_note, plan, delegate" in rows[0]
    assert "rejected" not in output


def test_list_names_the_rejected_files(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "kind: agent\nid: a\nmodel: runyard:demo\n")
    bad = write(tmp_path / "b.yaml", "kind: agent\nid: b\n")

    result = CliRunner().invoke(app, ["agents", "list", str(tmp_path)], env={"COLUMNS": "200"})

    assert result.exit_code == 0
    assert " a " in result.output
    assert result.output.endswith(
        f"1 file(s) rejected (runyard agents validate shows why):\n  {bad}\n"
    )


def test_list_reads_the_agents_folder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = run("list")
    assert code == 1
    assert output == "No catalog at agents: pass a directory of YAML files or one file.\n"

    (tmp_path / "agents").mkdir()
    write(tmp_path / "agents" / "a.yaml", "kind: agent\nid: here\nmodel: runyard:demo\n")
    code, output = run("list")
    assert code == 0
    assert "here" in output


def test_show_prints_the_spec_the_tenant_gets_with_its_version() -> None:
    code, output = run("show", "bookkeeper", str(EXAMPLES), "--tenant", "acme")

    assert code == 0, output
    lines = output.splitlines()
    assert lines[0].startswith("# version ")
    assert len(lines[0]) == len("# version ") + 64
    assert lines[1] == f"# from {EXAMPLES / 'bookkeeper.yaml'}:41"
    assert "tenant: acme" in lines
    assert "- assistant" in lines


def test_show_without_tenant_prints_the_shared_spec() -> None:
    code, output = run("show", "bookkeeper", str(EXAMPLES))

    assert code == 0
    assert "tenant: null" in output.splitlines()
    assert "  tool_call_concurrency: unlimited" in output.splitlines()


def test_show_an_unknown_agent_exits_1() -> None:
    code, output = run("show", "nobody", str(EXAMPLES), "--tenant", "acme")

    assert code == 1
    assert output == f"No agent 'nobody' for tenant 'acme' in {EXAMPLES}.\n"


def test_the_commands_default_catalog_is_the_one_serve_reads() -> None:
    from runyard.cli.agents import DEFAULT_CATALOG_DIR
    from runyard.service import DEFAULT_CATALOG_DIR as SERVED

    assert DEFAULT_CATALOG_DIR == SERVED
