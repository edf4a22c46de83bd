"""The LangGraph face: LangGraph Server's HTTP API at ``/langgraph``, so ``langgraph-sdk``
clients work against runyard with only their URL changed (docs/langgraph.md)."""

from runyard.faces.langgraph.error_shape import LangGraphErrorBody, langgraph_error
from runyard.faces.langgraph.route import PREFIX, router

__all__ = ["PREFIX", "LangGraphErrorBody", "langgraph_error", "router"]
