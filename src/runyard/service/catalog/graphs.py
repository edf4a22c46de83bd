"""The catalog's LangGraph agents: ``runtime: langchain`` and ``graph:`` specs compiled to
``GraphAgent``s (the ``langgraph`` extra; docs/langgraph.md).

A ``graph:`` reference is ``package.module:attribute`` (imported as Python imports it) or
``./file.py:attribute`` (a file beside the catalog file, as LangGraph Server's
``langgraph.json`` names one). The attribute is a compiled graph, a ``StateGraph`` (compiled
here), or a function returning either (given the agent's tools when it takes ``tools``). An
import that fails, a missing attribute, something that is no graph, a factory that raises or
returns no graph, and the extra not installed are each a ``ConfigurationError`` on the spec's
``graph`` (or ``runtime``) line: start-up stops, a reload keeps serving the last good version.
A ``./file.py`` needs a catalog file to be beside: a spec stored through the admin API names a
module.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from runyard.agent import Agent
from runyard.errors import ConfigurationError
from runyard.models import resolve_model
from runyard.registry import AgentSpec, CatalogEntry

__all__ = ["graph_agent"]


def graph_agent(
    entry: CatalogEntry[AgentSpec], model_for: Callable[[str], Any]
) -> Callable[..., Agent]:
    """What makes ``entry``'s ``GraphAgent`` from ``Agent``'s arguments (``compile_agent``'s)."""
    spec, where = entry.spec, f"{entry.source}:{entry.line}: agent {entry.spec.id!r}"
    try:
        from runyard.agent.graph_agent import GraphAgent
        from runyard.runtime.graph import AgentGraph, CustomGraph, GraphSource, RunyardChatModel
    except ImportError as exc:
        field = "graph" if spec.graph is not None else "runtime"
        raise ConfigurationError(
            f"{where}: {field}: LangGraph agents need the langgraph extra "
            f"(pip install 'runyard[langgraph]'): {exc}"
        ) from exc
    source: GraphSource
    if spec.graph is not None:
        try:
            source = CustomGraph(
                _graph_or_factory(_load(spec.graph, entry.source), spec.graph), spec.graph
            )
        except Exception as exc:  # an import, a lookup or a factory that failed: the spec's fault
            raise ConfigurationError(f"{where}: graph: {_failure(spec.graph, exc)}") from exc
    else:
        chat = RunyardChatModel(
            model=resolve_model(model_for(spec.model)),
            fallbacks=tuple(resolve_model(model_for(m)) for m in spec.fallback_models),
            settings=spec.model_settings or None,
        )
        source = AgentGraph(chat)
    return partial(GraphAgent, source=source)


def _failure(reference: str, exc: Exception) -> str:
    if isinstance(exc, ConfigurationError):
        return str(exc)
    return f"{reference} failed: {type(exc).__name__}: {exc}"


def _load(reference: str, catalog_file: str) -> Any:
    module_name, _, attribute = reference.rpartition(":")
    if module_name.endswith(".py") and not Path(catalog_file).is_file():
        # A spec stored through the admin API (or a leader's, on a follower) has no file to
        # be beside: a path would resolve against whatever directory the process runs in.
        raise ConfigurationError(
            f"{module_name} is a file beside a catalog file, and this spec has none "
            f"({catalog_file}); name a module instead (package.module:attribute)"
        )
    try:
        module = (
            _module_file(Path(catalog_file).parent / module_name)
            if module_name.endswith(".py")
            else importlib.import_module(module_name)
        )
    except Exception as exc:
        raise ConfigurationError(
            f"cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from exc
    found: Any = module
    for name in attribute.split("."):
        if not hasattr(found, name):
            raise ConfigurationError(f"{module_name} has no {attribute}")
        found = getattr(found, name)
    return found


def _module_file(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    name = f"runyard_graph_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic states look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _graph_or_factory(found: Any, reference: str) -> Any:
    from langgraph.graph import StateGraph
    from langgraph.pregel import Pregel

    if isinstance(found, Pregel):
        return found
    if isinstance(found, StateGraph):
        return found.compile()
    if callable(found) and not isinstance(found, type):
        return found
    raise ConfigurationError(
        f"{reference} is a {type(found).__name__}, not a LangGraph graph "
        "(a compiled graph, a StateGraph, or a function returning one)"
    )
