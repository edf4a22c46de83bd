"""The catalog's LangGraph agents (``graph:``, ``runtime: langchain``): a reference that cannot
be served — an import that fails, a missing attribute, something that is no graph, a factory
that raises or returns no graph, the ``langgraph`` extra missing — is a catalog error on the
spec's ``graph`` (or ``runtime``) line; a version read back from the database after a restart
finds its ``./file.py`` graph beside the file it was read from."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Any

import pytest

from graph_files import GRAPHS
from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.registry import load_catalog
from runyard.service import AgentChoice, CatalogAgents, catalog_tool_names
from runyard.storage import Store


def catalog_dir(tmp_path: Path, agent: str, graphs: str = GRAPHS) -> Path:
    (tmp_path / "agents.yaml").write_text(f"kind: agent\nid: g\ndescription: a graph\n{agent}\n")
    (tmp_path / "graphs.py").write_text(graphs)
    (tmp_path / "bad.py").write_text("1 / 0\n")
    return tmp_path


def agents_of(path: Path, store: Store) -> CatalogAgents:
    load = load_catalog(path, known_tools=catalog_tool_names())
    assert load.errors == []
    return CatalogAgents(load, store, Settings(), source=str(path))


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (
            "no_such_package_xyz.graphs:graph",
            "cannot import no_such_package_xyz.graphs: ModuleNotFoundError: "
            "No module named 'no_such_package_xyz'",
        ),
        ("./missing.py:graph", "cannot import ./missing.py: FileNotFoundError: no file"),
        ("./bad.py:graph", "cannot import ./bad.py: ZeroDivisionError: division by zero"),
        ("./graphs.py:nothing", "./graphs.py has no nothing"),
        (
            "./graphs.py:number",
            "./graphs.py:number is a int, not a LangGraph graph (a compiled graph, a "
            "StateGraph, or a function returning one)",
        ),
        ("./graphs.py:boom", "./graphs.py:boom failed: RuntimeError: no model key"),
        ("./graphs.py:wrong", "./graphs.py:wrong: the factory returned int, not a compiled graph"),
    ],
)
async def test_a_graph_that_cannot_be_served_is_an_error_on_the_graph_line(
    store: Store, tmp_path: Path, reference: str, message: str
) -> None:
    path = catalog_dir(tmp_path, f"graph: {reference}")
    catalog = agents_of(path, store)
    try:
        with pytest.raises(ConfigurationError) as failure:
            catalog.compile_all()
        errors = catalog.compile_new(catalog.catalog)
    finally:
        await catalog.aclose()

    # Start-up and a reload say it alike: the file, the line of graph, the field.
    assert str(failure.value).startswith(f"{path / 'agents.yaml'}:4: graph: {message}")
    ((error,),) = errors.values()
    assert (error.file, error.line, error.field) == (str(path / "agents.yaml"), 4, "graph")
    assert error.message.startswith(message)


class _NoLangGraph(MetaPathFinder):
    """An environment without the ``langgraph`` extra: its packages cannot be imported."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name.split(".")[0] in {"langgraph", "langchain", "langchain_core"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@pytest.fixture
def without_langgraph(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    before = dict(sys.modules)
    for name in list(sys.modules):
        if name.split(".")[0] in {"langgraph", "langchain", "langchain_core"} or name.startswith(
            ("runyard.runtime.graph", "runyard.agent.graph_agent")
        ):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_NoLangGraph(), *sys.meta_path])
    yield
    # What the failed imports left half-done goes; the modules of before come back.
    for name in set(sys.modules) - set(before):
        del sys.modules[name]


@pytest.mark.parametrize(
    ("agent", "field", "line"),
    [("runtime: langchain\nmodel: runyard:demo", "runtime", 4), ("graph: ./g.py:g", "graph", 4)],
)
async def test_without_the_extra_the_error_names_it_on_the_runtime_or_graph_line(
    store: Store, tmp_path: Path, without_langgraph: None, agent: str, field: str, line: int
) -> None:
    catalog = agents_of(catalog_dir(tmp_path, agent), store)
    try:
        errors = catalog.compile_new(catalog.catalog)
    finally:
        await catalog.aclose()

    ((error,),) = errors.values()
    assert (error.line, error.field) == (line, field)
    assert error.message.startswith(
        "LangGraph agents need the langgraph extra (pip install 'runyard[langgraph]')"
    )


async def test_a_stored_file_version_finds_its_graph_beside_its_file_after_a_restart(
    store: Store, tmp_path: Path
) -> None:
    path = catalog_dir(tmp_path, "graph: ./graphs.py:graph")
    first = agents_of(path, store)
    await first.record_versions(first.load)
    (old,) = [entry.version for entry in first.catalog.agents.values()]
    await first.aclose()
    # The file changes and the server restarts: the old version is only in the database.
    catalog_dir(tmp_path, "graph: ./graphs.py:graph\ninstructions: v2")
    second = agents_of(path, store)
    try:
        agent = await second.agent("t", AgentChoice("g", old))
        reply = await agent.generate("hi")
    finally:
        await second.aclose()

    assert reply.text == "REPLY"
