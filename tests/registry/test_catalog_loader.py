"""Loading a directory: files accepted or rejected whole, names checked across files, tenant
specs kept beside shared ones, and the catalog an immutable value comparable by versions."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_files import AGENT, BUILTINS, error_lines, load, write

from runyard.registry import Catalog, CatalogError, load_catalog

ROUTING = "kind: routing\ndefault_agent: {default}\n"


def test_several_documents_of_one_file_each_become_a_spec(tmp_path: Path) -> None:
    write(
        tmp_path,
        "all.yaml",
        AGENT.format(id="a")
        + "---\n"
        + AGENT.format(id="b")
        + "---\nkind: tool\nid: sums\nfactory: calculator\n---\n"
        + ROUTING.format(default="a"),
    )

    loaded = load(tmp_path)

    assert loaded.rejected == ()
    catalog = loaded.catalog
    assert sorted(catalog.agents) == [(None, "a"), (None, "b")]
    assert list(catalog.tools) == [(None, "sums")]
    assert list(catalog.routing) == [None]
    assert [entry.line for entry in catalog.entries()] == [1, 5, 9, 13]


def test_a_bad_file_is_rejected_whole_and_never_hides_the_good_ones(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a"))
    bad = write(
        tmp_path, "b.yaml", AGENT.format(id="b") + "---\n" + AGENT.format(id="c") + "x: 1\n"
    )
    write(tmp_path, "sub/d.yml", AGENT.format(id="d"))

    loaded = load(tmp_path)

    assert sorted(loaded.catalog.agents) == [(None, "a"), (None, "d")]
    assert [rejected.file for rejected in loaded.rejected] == [str(bad)]
    assert error_lines(loaded) == [f"{bad}:8: x: unknown field"]


def test_a_file_rejected_for_its_own_faults_lists_its_reference_errors_too(
    tmp_path: Path,
) -> None:
    # Fixing the unknown field must not be followed by a second round for the unknown tool.
    bad = write(
        tmp_path,
        "b.yaml",
        AGENT.format(id="a")
        + "instruction: hi\n"
        + "---\n"
        + AGENT.format(id="b")
        + "tools: [calculater]\nsub_agents: [ghost]\n",
    )

    loaded = load(tmp_path)

    assert loaded.catalog.agents == {}
    assert [line.split(": ", 2)[:2] for line in error_lines(loaded)] == [
        [f"{bad}:4", "instruction"],
        [f"{bad}:9", "tools[0].name"],
        [f"{bad}:10", "sub_agents[0]"],
    ]


def test_hidden_files_and_other_suffixes_are_not_read(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a"))
    write(tmp_path, ".#a.yaml", "broken: [")
    write(tmp_path, ".git/x.yaml", "broken: [")
    write(tmp_path, "notes.txt", "broken: [")

    loaded = load(tmp_path)

    assert loaded.rejected == ()
    assert list(loaded.catalog.agents) == [(None, "a")]


def test_one_file_can_be_loaded_on_its_own(tmp_path: Path) -> None:
    path = write(tmp_path, "a.yaml", AGENT.format(id="a"))

    assert list(load(path).catalog.agents) == [(None, "a")]


def test_a_missing_path_is_an_error_not_an_empty_catalog(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no catalog at"):
        load(tmp_path / "nope")


def test_a_tenant_spec_with_a_shared_id_is_kept_beside_the_shared_one(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="helper") + "instructions: shared\n")
    write(tmp_path, "b.yaml", AGENT.format(id="helper") + "tenant: acme\ninstructions: acme's\n")

    catalog = load(tmp_path).catalog

    assert sorted(catalog.agents, key=str) == [("acme", "helper"), (None, "helper")]
    assert catalog.agent("helper", "acme").spec.instructions == "acme's"  # type: ignore[union-attr]
    assert catalog.agent("helper", "globex").spec.instructions == "shared"  # type: ignore[union-attr]
    assert catalog.agent("helper").spec.instructions == "shared"  # type: ignore[union-attr]
    assert catalog.agent("nope", "acme") is None


def test_a_tenant_may_name_its_own_and_the_shared_specs(tmp_path: Path) -> None:
    write(tmp_path, "shared.yaml", AGENT.format(id="helper"))
    write(
        tmp_path,
        "acme.yaml",
        """
        kind: tool
        id: sums
        tenant: acme
        factory: calculator
        ---
        kind: agent
        id: boss
        tenant: acme
        model: runyard:demo
        tools: [sums, calculator]
        sub_agents: [helper]
        ---
        kind: routing
        tenant: acme
        default_agent: boss
        rules:
          - {id: r, when: {field: user, eq: ann}, agent: helper}
        """,
    )

    loaded = load(tmp_path)

    assert loaded.rejected == ()
    assert loaded.catalog.routing_for("acme").spec.default_agent == "boss"  # type: ignore[union-attr]
    assert loaded.catalog.routing_for("globex") is None
    assert loaded.catalog.tool("sums", "acme") is not None
    assert loaded.catalog.tool("sums") is None


def test_a_shared_spec_may_not_name_a_tenant_only_spec(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="helper") + "tenant: acme\n")
    shared = write(tmp_path, "b.yaml", AGENT.format(id="boss") + "sub_agents: [helper]\n")

    assert error_lines(load(tmp_path)) == [
        f"{shared}:4: sub_agents[0]: no agent 'helper' for every tenant"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            AGENT.format(id="a") + "tools:\n  - calculator\n  - {name: web_search}\n",
            "6: tools[1].name: unknown tool 'web_search': neither a built-in tool "
            "(calculator, delegate, list_notes, plan, save_note) nor a kind: tool for every tenant",
            id="unknown-tool",
        ),
        pytest.param(
            AGENT.format(id="a") + "tenant: acme\ntools: [sums]\n",
            "5: tools[0].name: unknown tool 'sums': neither a built-in tool "
            "(calculator, delegate, list_notes, plan, save_note) nor a kind: tool for tenant 'acme'",
            id="unknown-tool-for-a-tenant",
        ),
        pytest.param(
            AGENT.format(id="a") + "tools: [calculator, plan, calculator]\n",
            "4: tools[2]: tool 'calculator' is listed twice",
            id="tool-twice",
        ),
        pytest.param(
            "kind: tool\nid: fetch\nfactory: http_request\n",
            "3: factory: unknown tool factory 'http_request': expected one of "
            "calculator, delegate, list_notes, plan, save_note",
            id="unknown-factory",
        ),
        pytest.param(
            "kind: tool\nid: plan\nfactory: calculator\n",
            "2: id: 'plan' is a built-in tool's name; choose another id",
            id="tool-shadows-a-built-in",
        ),
        pytest.param(
            AGENT.format(id="a") + "sub_agents:\n  - helper\n",
            "5: sub_agents[0]: no agent 'helper' for every tenant",
            id="missing-sub-agent",
        ),
        pytest.param(
            AGENT.format(id="a") + "sub_agents: [a]\n",
            "4: sub_agents[0]: an agent cannot be its own sub-agent",
            id="own-sub-agent",
        ),
        pytest.param(
            AGENT.format(id="a") + "---\n" + AGENT.format(id="b") + "sub_agents: [a, a]\n",
            "8: sub_agents[1]: sub-agent 'a' is listed twice",
            id="sub-agent-twice",
        ),
        pytest.param(
            ROUTING.format(default="nobody"),
            "2: default_agent: no agent 'nobody' for every tenant",
            id="missing-default-agent",
        ),
        pytest.param(
            AGENT.format(id="a")
            + "---\nkind: routing\ntenant: acme\ndefault_agent: a\nrules:\n"
            + "  - {id: r, when: {field: user, exists: true}, agent: ghost}\n",
            "9: rules[0].agent: rule 'r': no agent 'ghost' for tenant 'acme'",
            id="rule-names-a-missing-agent",
        ),
        pytest.param(
            AGENT.format(id="a")
            + "---\nkind: routing\ndefault_agent: a\nrules:\n"
            + "  - {id: r, when: {field: user, exists: true}, agent: a}\n"
            + "  - {id: r, when: {field: user, exists: false}, agent: a}\n",
            "9: rules[1].id: a second rule 'r'",
            id="rule-id-twice",
        ),
        pytest.param(
            AGENT.format(id="a") + "---\n" + AGENT.format(id="a"),
            "6: id: a second agent 'a' for every tenant (the first is at {file}:1)",
            id="agent-twice-in-one-file",
        ),
        pytest.param(
            AGENT.format(id="a")
            + "---\n"
            + ROUTING.format(default="a")
            + "---\n"
            + ROUTING.format(default="a"),
            "8: kind: a second routing for every tenant (the first is at {file}:5)",
            id="routing-twice",
        ),
    ],
)
def test_each_reference_fault_names_its_file_line_and_field(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = write(tmp_path, "f.yaml", text)

    assert error_lines(load(tmp_path)) == [f"{path}:" + expected.format(file=path)]


def test_a_duplicate_in_a_later_file_is_rejected_and_the_first_kept(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", AGENT.format(id="x") + "tenant: acme\ninstructions: one\n")
    second = write(tmp_path, "b.yaml", AGENT.format(id="x") + "tenant: acme\ninstructions: two\n")

    loaded = load(tmp_path)

    assert loaded.catalog.agent("x", "acme").spec.instructions == "one"  # type: ignore[union-attr]
    assert error_lines(loaded) == [
        f"{second}:2: id: a second agent 'x' for tenant 'acme' (the first is at {first}:1)"
    ]


def test_a_rejected_file_takes_the_files_that_name_its_agents_with_it(tmp_path: Path) -> None:
    broken = write(tmp_path, "a.yaml", AGENT.format(id="helper") + "tools: [nope]\n")
    boss = write(tmp_path, "b.yaml", AGENT.format(id="boss") + "sub_agents: [helper]\n")
    routing = write(tmp_path, "c.yaml", ROUTING.format(default="boss"))
    fine = write(tmp_path, "d.yaml", AGENT.format(id="other"))

    loaded = load(tmp_path)

    assert [rejected.file for rejected in loaded.rejected] == [str(broken), str(boss), str(routing)]
    assert error_lines(loaded)[1:] == [
        f"{boss}:4: sub_agents[0]: no agent 'helper' for every tenant "
        f"({broken}:1 defines it, but that file was rejected)",
        f"{routing}:2: default_agent: no agent 'boss' for every tenant "
        f"({boss}:1 defines it, but that file was rejected)",
    ]
    assert list(loaded.catalog.agents) == [(None, "other")]
    assert str(fine) not in {rejected.file for rejected in loaded.rejected}


def test_a_duplicate_of_a_rejected_spec_takes_its_place(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="x") + "tools: [nope]\n")
    write(tmp_path, "b.yaml", AGENT.format(id="x") + "instructions: fallback\n")

    loaded = load(tmp_path)

    assert [Path(r.file).name for r in loaded.rejected] == ["a.yaml"]
    assert loaded.catalog.agent("x").spec.instructions == "fallback"  # type: ignore[union-attr]


def test_the_known_tools_come_from_the_caller(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a") + "tools: [http_request]\n")

    assert load_catalog(tmp_path, known_tools=[*BUILTINS, "http_request"]).rejected == ()
    assert len(load(tmp_path).rejected) == 1


def test_a_kind_tool_is_made_only_by_a_factory_when_the_caller_names_them(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.yaml", "kind: tool\nid: notes2\nfactory: save_note\n")

    loaded = load_catalog(tmp_path, known_tools=[*BUILTINS, "notes"], factories=["notes"])

    assert error_lines(loaded) == [
        f"{tmp_path / 'a.yaml'}:3: factory: unknown tool factory 'save_note': expected one of notes"
    ]
    assert load(tmp_path).rejected == ()  # without factories, every known tool may make one


def test_catalogs_of_the_same_specs_are_equal_wherever_they_were_written(tmp_path: Path) -> None:
    write(tmp_path, "one/a.yaml", AGENT.format(id="a") + "---\n" + AGENT.format(id="b"))
    write(tmp_path, "two/x.yaml", "# the same agents, split\n" + AGENT.format(id="b"))
    write(tmp_path, "two/y.yaml", "id: a\nmodel: runyard:demo\nkind: agent\n")
    write(tmp_path, "three/a.yaml", AGENT.format(id="a") + "instructions: changed\n")

    one, two, three = (load(tmp_path / name).catalog for name in ("one", "two", "three"))

    assert one.revision == two.revision
    assert {k: e.version for k, e in one.agents.items()} == {
        k: e.version for k, e in two.agents.items()
    }
    assert one.revision != three.revision
    assert Catalog().revision == Catalog.of([]).revision


def test_the_catalog_cannot_be_changed(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a"))
    catalog = load(tmp_path).catalog

    with pytest.raises(TypeError):
        catalog.agents[(None, "b")] = catalog.agents[(None, "a")]  # type: ignore[index]
    with pytest.raises(AttributeError):
        catalog.agents = {}  # type: ignore[misc]


def test_an_unreadable_file_is_rejected_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\xff\xfe\x00kind")

    (error,) = load(tmp_path).errors

    assert (error.file, error.line, error.field) == (str(path), 1, "file")
    assert error.message.startswith("cannot read it: ")
    assert isinstance(error, CatalogError)


def test_a_name_defined_in_a_file_with_a_broken_document_says_where_it_went(tmp_path: Path) -> None:
    broken = write(tmp_path, "a.yaml", AGENT.format(id="helper") + "---\nkind: tool\nid: t\n")
    boss = write(
        tmp_path, "b.yaml", AGENT.format(id="boss") + "tenant: acme\nsub_agents: [helper]\n"
    )

    assert error_lines(load(tmp_path)) == [
        f"{broken}:5: factory: required field is missing",
        f"{boss}:5: sub_agents[0]: no agent 'helper' for tenant 'acme' "
        f"({broken}:1 defines it, but that file was rejected)",
    ]
