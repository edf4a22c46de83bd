"""runyard's side of the service race (``service_vs_langgraph.py``): its real HTTP app, one agent.

``create()`` is a uvicorn factory. Its agent ``assistant`` has one async tool, ``add``, on the
zero-latency ``FunctionModel`` of ``_fake_models`` (it calls ``add(1, 2)``, then streams "The sum
is 3." as four deltas), built to hold a ``hold <token>`` run in its first model call
(``_held_runs``): the agent of ``langgraph_peer/graph.py``, on runyard. ``create_graph()`` serves
that very graph instead — LangGraph Server's own, a ``create_agent`` graph on the LangChain fake
``_fake_chat_model`` — as a catalog's ``graph:`` agent runs it (``GraphAgent``): the race on the
same graph. Titles are off: they would add a model call per thread that LangGraph does not make.
The store and the bus are the embedded defaults (``RUNYARD_DATABASE_URL``, a SQLite file; no
Redis).
"""

from __future__ import annotations

from _fake_models import add_calling_function_model
from fastapi import FastAPI

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def create() -> FastAPI:
    agent = Agent("assistant", add_calling_function_model(holds=True), tools=[add])
    return create_app(Settings(), agents={"assistant": agent}, titles=False)


def create_graph() -> FastAPI:
    from langgraph_peer.graph import graph

    from runyard.agent.graph_agent import GraphAgent
    from runyard.runtime.graph import CustomGraph

    agent = GraphAgent("assistant", "runyard:demo", CustomGraph(graph, "langgraph_peer"))
    return create_app(Settings(), agents={"assistant": agent}, titles=False)
