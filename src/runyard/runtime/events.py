"""Lifecycle events of a run and the synchronous bus that delivers them to ``agent.on`` handlers."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["AgentEvent", "AgentEventBus", "AgentEventData", "EventHandler"]

log = logging.getLogger(__name__)


class AgentEvent(StrEnum):
    AGENT_START = "agent_start"
    AGENT_END = "agent_end"
    TURN_START = "turn_start"
    TURN_END = "turn_end"
    TOOL_EXECUTION_START = "tool_execution_start"
    TOOL_EXECUTION_END = "tool_execution_end"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class AgentEventData:
    """What a handler receives: the event, its run, and the event's payload."""

    event: AgentEvent
    run_id: str
    payload: dict[str, Any] = field(default_factory=dict)


EventHandler = Callable[[AgentEventData], None]


class AgentEventBus:
    """Handlers per event, called synchronously in registration order, each registered once.

    A handler that raises is logged and skipped: observers must never break the run they watch.
    """

    def __init__(self) -> None:
        self._handlers: dict[AgentEvent, list[EventHandler]] = {}

    def on(self, event: AgentEvent, handler: EventHandler) -> None:
        handlers = self._handlers.setdefault(event, [])
        if handler not in handlers:
            handlers.append(handler)

    def off(self, event: AgentEvent, handler: EventHandler) -> None:
        handlers = self._handlers.get(event, [])
        if handler in handlers:
            handlers.remove(handler)

    def wants(self, event: AgentEvent) -> bool:
        """True when a handler listens for ``event``: a payload that costs something to build
        is built only then."""
        return bool(self._handlers.get(event))

    def emit(self, event: AgentEvent, run_id: str, **payload: Any) -> None:
        handlers = self._handlers.get(event)
        if not handlers:
            return
        data = AgentEventData(event, run_id, payload)
        for handler in tuple(handlers):
            try:
                handler(data)
            except Exception:
                log.exception("handler for %s failed", event)
