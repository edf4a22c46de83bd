"""``GraphAgent``: an ``Agent`` whose runs are a LangGraph graph (the ``langgraph`` extra).

Everything around the loop is the agent's own — memory, checkpoints, limits, middleware of the
runtime, events, telemetry, approvals and resumes — so a service serves it as any agent; the
loop is the graph (``runyard.runtime.graph``). Import it from here: it needs LangGraph, which
``import runyard`` does not.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from runyard.agent.agent import Agent
from runyard.agent.prepared_resume import PreparedResume
from runyard.agent.runs import AgentRuns
from runyard.runtime import AgentState
from runyard.runtime.graph import GraphRuntime, GraphSource, graph_answer, is_graph_question

__all__ = ["GraphAgent"]


class GraphAgent(Agent):
    """An agent named ``name`` whose loop is ``source``'s graph; the rest as ``Agent``'s
    (``model`` titles threads and serves memory's observer)."""

    def __init__(self, name: str, model: Any, source: GraphSource, **options: Any) -> None:
        super().__init__(name, model, **options)
        self.source = source
        self._runs = AgentRuns(self._spec, partial(GraphRuntime, source))

    async def _check_resume(
        self, run_id: str, state: AgentState, data: Any, tool_call_id: str
    ) -> PreparedResume:
        entry = state.waiting_call(tool_call_id)
        if entry is not None and is_graph_question(entry):
            answer = graph_answer(entry, data)
            return PreparedResume(run_id, tool_call_id, answer, state)
        return await super()._check_resume(run_id, state, data, tool_call_id)
