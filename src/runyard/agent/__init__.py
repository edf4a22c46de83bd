"""``Agent``, the public SDK object, ``StreamResult`` and ``PreparedResume``."""

from runyard.agent.agent import Agent, AgentInput, Method
from runyard.agent.prepared_resume import PreparedResume
from runyard.agent.runs import ENDED_RUNS_KEPT
from runyard.agent.stream import StreamResult
from runyard.agent.sub_agent import detach_suspension

__all__ = [
    "ENDED_RUNS_KEPT",
    "Agent",
    "AgentInput",
    "Method",
    "PreparedResume",
    "StreamResult",
    "detach_suspension",
]
