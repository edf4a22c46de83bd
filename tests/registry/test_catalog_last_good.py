"""Loading again with each file's last good entries: a file rejected now serves what it served
before (its YAML, its fields or its references broke), a file rejected from outside the loader
(``refused``) too, and a deleted file serves nothing."""

from __future__ import annotations

from pathlib import Path

from catalog_files import AGENT, BUILTINS, load, write

from runyard.registry import CatalogError, CatalogLoad, load_catalog

ROUTING = "kind: routing\ndefault_agent: {default}\n"


def again(directory: Path, before: CatalogLoad, **refused: list[CatalogError]) -> CatalogLoad:
    return load_catalog(
        directory,
        known_tools=BUILTINS,
        last_good=before.served,
        refused={str(directory / name): errors for name, errors in refused.items()},
    )


def instructions(loaded: CatalogLoad, agent_id: str) -> str:
    entry = loaded.catalog.agent(agent_id)
    assert entry is not None
    return entry.spec.instructions


def test_a_file_that_breaks_serves_its_last_good_entries_and_says_why(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a") + "instructions: old\n")
    before = load(tmp_path)
    broken = write(tmp_path, "a.yaml", AGENT.format(id="a") + "instructions: [new\n")

    after = again(tmp_path, before)

    assert instructions(after, "a") == "old"
    (rejected,) = after.rejected
    assert (rejected.file, rejected.last_good) == (str(broken), True)
    assert rejected.errors[0].field == "yaml"
    assert after.served == before.served


def test_a_routing_to_a_missing_agent_keeps_the_routing_it_had(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a"))
    write(tmp_path, "routing.yaml", ROUTING.format(default="a"))
    before = load(tmp_path)
    routing = write(tmp_path, "routing.yaml", ROUTING.format(default="ghost"))

    after = again(tmp_path, before)

    entry = after.catalog.routing_for(None)
    assert entry is not None
    assert entry.spec.default_agent == "a"
    assert [str(e) for e in after.errors] == [
        f"{routing}:2: default_agent: no agent 'ghost' for every tenant"
    ]
    assert after.rejected[0].last_good is True


def test_a_file_refused_from_outside_serves_its_last_good_entries(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a") + "instructions: old\n")
    before = load(tmp_path)
    file = write(tmp_path, "a.yaml", AGENT.format(id="a") + "instructions: new\n")
    refusal = CatalogError(str(file), 1, "tools", "cannot be built")

    after = again(tmp_path, before, **{"a.yaml": [refusal]})

    assert instructions(after, "a") == "old"
    assert after.errors == [refusal]


def test_a_new_file_that_is_broken_serves_nothing_and_a_deleted_file_is_gone(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.yaml", AGENT.format(id="a"))
    gone = write(tmp_path, "b.yaml", AGENT.format(id="b"))
    before = load(tmp_path)
    gone.unlink()
    new = write(tmp_path, "c.yaml", AGENT.format(id="c") + "colour: blue\n")

    after = again(tmp_path, before)

    assert sorted(after.catalog.agents) == [(None, "a")]
    assert [(r.file, r.last_good) for r in after.rejected] == [(str(new), False)]
