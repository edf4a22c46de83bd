"""``Agent``, the public SDK object, ``StreamResult`` and ``PreparedResume``."""

from runyard.agent.agent import Agent, AgentInput, Method
from runyard.agent.prepared_resume import PreparedResume
from runyard.agent.stream import StreamResult

__all__ = ["Agent", "AgentInput", "Method", "PreparedResume", "StreamResult"]
