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

from collections.abc import Iterable

from runyard.protocol import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestEvent,
    ConfirmationRequestPayload,
    ReasoningDeltaEvent,
    RunResumedEvent,
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
    ``answer`` is the orchestrator's text so far (its stretches apart a blank line, what another
    server said again after a ``run-resumed`` once)."""

    def __init__(self) -> None:
        self._said: list[tuple[int, str]] = []
        """(event id, text) of the answer so far."""
        self._length = 0
        self._noted_at = 0
        self._tools: dict[str, str] = {}
        self._roles: dict[str, str] = {}
        self._thinking = False
        self._apart = False

    def answered(self, questions: Iterable[ConfirmationRequestPayload]) -> None:
        """Learn the tools of the calls ``questions`` asked about: a call that follows a run
        on from its approval (the 2026 protocol's retry) never saw those calls' ``tool-call``."""
        for question in questions:
            self._tools[question.tool_call_id] = question.tool_name

    @property
    def answer(self) -> str:
        return "".join(text for _, text in self._said)

    def note(self, event_id: int, event: WireEvent) -> str | None:
        """The message of the log's event ``event_id``."""
        writing = isinstance(event, TextDeltaEvent) and event.agent_id == ORCHESTRATOR_ID
        thinking, self._thinking = self._thinking, isinstance(event, ReasoningDeltaEvent)
        apart, self._apart = self._apart, bool(self._said) and not writing
        if isinstance(event, TextDeltaEvent):
            return self._text(event_id, event, apart) if writing else None
        if isinstance(event, ReasoningDeltaEvent):
            return None if thinking or event.agent_id != ORCHESTRATOR_ID else "thinking"
        if isinstance(event, RunResumedEvent):
            after = event.payload.after_event_id
            self._said = [(said, text) for said, text in self._said if said <= after]
            self._length = len(self.answer)
            self._apart = apart  # the text goes on where it was, no stretch of its own
            return None
        return self._step(event)

    def _step(self, event: WireEvent) -> str | None:
        match event:
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

    def _text(self, event_id: int, event: TextDeltaEvent, apart: bool) -> str | None:
        text = ("\n\n" if apart else "") + event.payload.text
        self._said.append((event_id, text))
        self._length += len(text)
        if self._length - self._noted_at < TEXT_STEP:
            return None
        self._noted_at = self._length
        return f"writing: …{self.answer[-_TAIL:]}"

    def _tool(self, tool_call_id: str) -> str:
        return self._tools.get(tool_call_id, "a tool")
