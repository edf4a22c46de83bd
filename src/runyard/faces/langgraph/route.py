"""``/langgraph``: LangGraph Server's HTTP API over runyard's agents, threads and runs — what
``langgraph_sdk.get_client(url=".../langgraph")`` (and ``@langchain/langgraph-sdk``) call.

Assistants are the served agents (``assistants``), threads are runyard's threads (``threads``,
``state_routes``), runs are runyard runs started, resumed and followed the LangGraph way
(``runs``, ``run_reads``), streamed through ``StreamParts``. Every error is LangGraph Server's
``{"detail"}`` body (``langgraph_error``, hooked in by the app for this prefix); keys and
tenants are ``/v1``'s (docs/langgraph.md).
"""

from __future__ import annotations

from fastapi import APIRouter

from runyard.faces.langgraph.assistants import assistant_routes
from runyard.faces.langgraph.run_reads import run_read_routes
from runyard.faces.langgraph.runs import run_routes
from runyard.faces.langgraph.state_routes import state_routes
from runyard.faces.langgraph.threads import thread_routes
from runyard.faces.wiring import FaceWiring

__all__ = ["PREFIX", "router"]

PREFIX = "/langgraph"
"""Where the face is mounted: the ``url`` of a LangGraph SDK client."""


def router(wiring: FaceWiring) -> APIRouter:
    """The LangGraph face's routes."""
    api = APIRouter(prefix=PREFIX, tags=["faces"])
    assistant_routes(api, wiring)
    thread_routes(api, wiring)
    state_routes(api, wiring)
    run_routes(api, wiring)
    run_read_routes(api, wiring)
    return api
