"""``ProgressNotes``: what an agent tool call tells its client while the run goes, as the messages
of MCP progress notifications (sent only when the call carried a ``progressToken``).

| runyard event | progress message |
|---|---|
| ``tool-call`` | ``calling <tool>`` (``<role>: calling <tool>`` for a sub-agent's call) |
| ``tool-result`` / ``tool-error`` | ``<tool> done`` / ``<tool> failed: <error>`` |
| ``confirmation-request`` | ``waiting for approval: <tool>`` |
| ``agent-spawned`` / ``agent-completed`` | ``sub-agent <role> started`` / ``sub-agent <role> finished`` |
| ``tasks-update`` | ``tasks: <done>/<all> done`` |
| the orchestrator's ``reasoning-delta`` | ``thinking``, once per stretch of reasoning |
| the orchestrator's ``text-delta`` | ``writing: …<the answer's last 80 characters>``, each time another ``TEXT_STEP`` characters arrived |

The ``progress`` value counts the notifications of the call (it only grows, as MCP asks); there
is no ``total``, a run's length being unknown.
"""

from __future__ import annotations

from runyard.protocol import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestEvent,
    ReasoningDeltaEvent,
    TasksUpdateEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)
from runyard.service import ORCHESTRATOR_ID

__all__ = ["TEXT_STEP", "ProgressNotes"]

TEXT_STEP = 200
"""Characters of answer text between two ``writing`` notes: enough to show it moves, few
enough notifications for a long answer."""
_TAIL = 80


class ProgressNotes:
    """Follows one call's events: ``note`` gives the progress message of each (None: none), and
    ``answer`` is the orchestrator's text so far."""

    def __init__(self) -> None:
        self.answer = ""
        self._noted_at = 0
        self._tools: dict[str, str] = {}
        self._roles: dict[str, str] = {}
        self._thinking = False

    def note(self, event: WireEvent) -> str | None:
        thinking, self._thinking = self._thinking, isinstance(event, ReasoningDeltaEvent)
        match event:
            case ReasoningDeltaEvent():
                return None if thinking or event.agent_id != ORCHESTRATOR_ID else "thinking"
            case TextDeltaEvent():
                return self._text(event) if event.agent_id == ORCHESTRATOR_ID else None
            case ToolCallEvent():
                name = self._tools[event.payload.tool_call_id] = event.payload.tool_name
                role = self._roles.get(event.agent_id)
                return f"calling {name}" if role is None else f"{role}: calling {name}"
            case ToolResultEvent():
                return f"{self._tool(event.payload.tool_call_id)} done"
            case ToolErrorEvent():
                return f"{self._tool(event.payload.tool_call_id)} failed: {event.payload.error}"
            case ConfirmationRequestEvent():
                return f"waiting for approval: {event.payload.tool_name}"
            case AgentSpawnedEvent():
                role = self._roles[event.agent_id] = event.payload.role
                return f"sub-agent {role} started"
            case AgentCompletedEvent():
                return f"sub-agent {event.payload.role} finished"
            case TasksUpdateEvent():
                tasks = event.payload.tasks
                done = sum(task.status == "completed" for task in tasks)
                return f"tasks: {done}/{len(tasks)} done"
            case _:
                return None

    def _text(self, event: TextDeltaEvent) -> str | None:
        self.answer += event.payload.text
        if len(self.answer) - self._noted_at < TEXT_STEP:
            return None
        self._noted_at = len(self.answer)
        return f"writing: …{self.answer[-_TAIL:]}"

    def _tool(self, tool_call_id: str) -> str:
        return self._tools.get(tool_call_id, "a tool")
