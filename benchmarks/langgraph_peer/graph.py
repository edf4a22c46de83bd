"""The LangGraph Server side of the service race: runyard's race agent, as a LangGraph graph.

``create_agent`` with one async tool, ``add``, on the zero-latency LangChain fake of
``_fake_chat_model`` (it calls ``add(1, 2)``, then streams "The sum is 3." as four deltas), built
to hold a ``hold <token>`` run in its first model call (``_held_runs``). ``langgraph.json`` names
it and puts the benchmarks folder on the path; ``benchmarks/service_vs_langgraph.py`` serves it
with ``langgraph dev`` from its own virtual environment.
"""

from __future__ import annotations

from _fake_chat_model import AddCallingChatModel
from langchain.agents import create_agent


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


graph = create_agent(AddCallingChatModel(holds=True), tools=[add])
