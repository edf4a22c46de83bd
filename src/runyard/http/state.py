"""``AppState``: the parts the app's lifespan assembles, and the routes' way to reach them."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http.errors import ApiError
from runyard.service import EventLog, RunManager, Threads
from runyard.storage import Store

__all__ = ["AppState", "Parts", "parts"]


@dataclass(frozen=True, slots=True)
class Parts:
    """What serves requests once the app is ready."""

    store: Store
    events: EventLog
    runs: RunManager
    threads: Threads
    agents: dict[str, Agent]


@dataclass
class AppState:
    """Settings and options fixed by ``create_app``; ``parts`` set while the app is ready."""

    settings: Settings
    sse_ping_seconds: float
    parts: Parts | None = None


def parts(request: Request) -> Parts:
    """The ready parts of the app; 503 while it starts or stops."""
    state: AppState = request.app.state.runyard
    if state.parts is None:
        raise ApiError(503, "not_ready", "the service is starting or stopping")
    return state.parts
