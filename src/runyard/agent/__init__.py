"""``Agent``, the public SDK object, and ``StreamResult``."""

from runyard.agent.agent import Agent, AgentInput, Method
from runyard.agent.stream import StreamResult

__all__ = ["Agent", "AgentInput", "Method", "StreamResult"]
