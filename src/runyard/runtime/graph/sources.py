"""Where a LangGraph agent's graph comes from: ``create_agent`` over the spec, or your own.

``AgentGraph`` is a ``runtime: langchain`` agent: LangChain's ``create_agent`` with the agent's
chat model (runyard's model layer, through the agent's middleware) and its tools (runyard's, as
``RunyardTool``s, through the same middleware); the instructions reach the model as the
conversation's system message, memory's included. A custom graph's tool calls go through the
agent's middleware when they are runyard's tools; its model calls are its own.
``CustomGraph`` is a ``graph:`` agent: a compiled graph, or a factory that builds one (given
the agent's tools when it takes a ``tools`` parameter). Each compiles once per set of tools
(memory may add its own to a run).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.pregel import Pregel

from runyard.errors import ConfigurationError, RunError
from runyard.runtime.graph.chat_model import RunyardChatModel
from runyard.runtime.graph.tools import langchain_tools
from runyard.runtime.middleware import NO_MIDDLEWARE, MiddlewareStack
from runyard.tools import Tool

__all__ = ["AgentGraph", "CustomGraph", "GraphFactory"]

CompiledGraph = Pregel[Any, Any, Any, Any]
GraphFactory = Callable[..., CompiledGraph]


Build = Callable[[Mapping[str, Tool], MiddlewareStack], CompiledGraph]


class _Compiled:
    """Graphs compiled once per set of tool names (an agent's middleware is always the same)."""

    def __init__(self, build: Build) -> None:
        self._build = build
        self._graphs: dict[tuple[str, ...], CompiledGraph] = {}

    def graph(self, tools: Mapping[str, Tool], middleware: MiddlewareStack) -> CompiledGraph:
        key = tuple(tools)
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = self._build(tools, middleware)
        return graph


class AgentGraph(_Compiled):
    """``create_agent(model, tools, middleware=...)``: the graph of a ``runtime: langchain``
    agent."""

    def __init__(self, model: RunyardChatModel) -> None:
        from langchain.agents import create_agent

        def build(tools: Mapping[str, Tool], middleware: MiddlewareStack) -> CompiledGraph:
            chat = model.model_copy(update={"middleware": middleware})
            return create_agent(chat, langchain_tools(tools))

        super().__init__(build)

    def graph_input(self, messages: list[BaseMessage]) -> Any:
        return {"messages": messages}


class CustomGraph(_Compiled):
    """Your compiled graph, or a factory that returns one (called with ``tools=`` when it takes
    them). A graph whose state has ``messages`` gets the conversation; another gets the user's
    message, which must then be a JSON object of its input."""

    def __init__(self, graph: CompiledGraph | GraphFactory, name: str) -> None:
        def build(tools: Mapping[str, Tool], middleware: MiddlewareStack) -> CompiledGraph:
            if isinstance(graph, Pregel):
                return graph
            takes_tools = "tools" in inspect.signature(graph).parameters
            built = graph(tools=langchain_tools(tools)) if takes_tools else graph()
            if not isinstance(built, Pregel):
                raise ConfigurationError(
                    f"{name}: the factory returned {type(built).__name__}, not a compiled graph"
                )
            return built

        super().__init__(build)
        self._first = self.graph({}, NO_MIDDLEWARE)
        self._takes_messages = "messages" in _input_fields(self._first)

    def graph_input(self, messages: list[BaseMessage]) -> Any:
        if self._takes_messages:
            return {"messages": messages}
        last = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        try:
            value = json.loads(last.text) if last is not None else None
        except ValueError:
            value = None
        if not isinstance(value, dict):
            fields = ", ".join(sorted(_input_fields(self._first))) or "none"
            raise RunError(
                f"This graph's input has no messages; send a JSON object of its input "
                f"(fields: {fields})"
            )
        return value


def _input_fields(graph: CompiledGraph) -> set[str]:
    schema = graph.get_input_jsonschema()
    return set((schema.get("properties") or {}).keys())
