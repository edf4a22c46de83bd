"""``RuntimeSpec``: everything one run needs from its agent, fixed before the run starts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic_ai.models import Model

from runyard.messages import AgentMessage, CustomMessage
from runyard.runtime.events import AgentEventBus
from runyard.runtime.memory import MemoryProtocol, MemoryScope
from runyard.runtime.middleware import NO_MIDDLEWARE, MiddlewareStack
from runyard.runtime.state import RunStateManager
from runyard.runtime.structured_output import StructuredOutput
from runyard.telemetry import NO_TELEMETRY, Telemetry
from runyard.tools import Tool

__all__ = ["RuntimeSpec", "TurnSavedHook"]

TurnSavedHook = Callable[[MemoryScope, list[AgentMessage | CustomMessage]], None]


@dataclass(frozen=True, slots=True)
class RuntimeSpec:
    name: str
    model: Model
    model_label: str
    instructions: str
    tools: Mapping[str, Tool]
    tool_call_concurrency: float
    max_iterations: int
    checkpoints: RunStateManager
    events: AgentEventBus
    memory: MemoryProtocol | None = None
    output: StructuredOutput | None = None
    """The structured output asked for (``output_type`` or ``output_schema``), built once per
    agent (a schema is not free); None: a text answer."""
    model_settings: Mapping[str, Any] | None = None
    on_turn_saved: TurnSavedHook | None = None
    telemetry: Telemetry = NO_TELEMETRY
    """Where runs report their spans unless a run brings its own (``telemetry=``)."""
    timeout_s: float | None = None
    """The whole run's executing time (``RunClock``); None: no limit."""
    tool_timeout_s: float | None = None
    """Each tool call's time, unless the tool's own ``timeout`` is shorter; None: no limit."""
    max_output_tokens: int | None = None
    """Output tokens over every model call of the run (``OutputBudget``); None: no limit."""
    middleware: MiddlewareStack = NO_MIDDLEWARE
    """Hooks around every model call, tool call and streamed delta (``runtime.middleware``)."""
    fallback_models: tuple[Model, ...] = ()
    """Models that serve a call, in turn, when the ones before failed it at the provider
    (``runyard.models.fallback``)."""
