"""``RunAgentInput``: the body of ``POST /agui/{agentId}``, AG-UI's run request, as runyard reads it.

runyard keeps the conversation itself (the thread's memory), so of ``messages`` only the last
one is read: a ``user`` message starts a run with its text. ``resume`` answers the interrupts a
suspended run ended with (each an approval, its ``interruptId`` the ``requestId``) and carries
that run on. ``state``, ``tools``, ``context`` and ``forwardedProps`` are accepted and unused:
an agent's tools are its catalog's and run on the server.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field, user_text
from runyard.ids import REQUEST_ID_PATTERN, THREAD_ID_PATTERN

__all__ = ["AguiMessage", "ResumeEntry", "RunAgentInput"]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, extra="allow")


class AguiMessage(_Camel):
    """One message of the conversation; only a ``user`` message's text is read."""

    id: str
    role: Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]
    content: str | list[dict[str, Any]] | None = Field(
        default=None,
        description="plain text, or parts of which the `text` parts are read",
    )

    def text(self) -> str:
        """The message's text: the string, or its text parts joined by blank lines."""
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n\n".join(str(p["text"]) for p in parts if p.get("type") == "text" and "text" in p)


class ResumeEntry(_Camel):
    """The answer to one interrupt of the run that ended suspended."""

    interrupt_id: str = Field(
        pattern=REQUEST_ID_PATTERN, description="the interrupt's id: the requestId it answers"
    )
    status: Literal["resolved", "cancelled"]
    payload: Any = Field(
        default=None,
        description='`{"approved": bool, "reason"?: str, ...}` as POST /v1/confirm takes it, '
        "or a bare boolean; `cancelled` denies",
    )

    def answer(self, field: str) -> Answer:
        """The runyard answer; 422 naming ``field`` when the payload is none."""
        if self.status == "cancelled":
            return Answer(self.interrupt_id, {"approved": False, "reason": "cancelled"})
        payload = self.payload
        if isinstance(payload, bool):
            payload = {"approved": payload}
        if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
            raise invalid_field(field, 'must be {"approved": true|false, ...} or a boolean')
        return Answer(self.interrupt_id, payload)


class RunAgentInput(_Camel):
    """AG-UI's ``RunAgentInput``."""

    thread_id: str = Field(
        pattern=THREAD_ID_PATTERN, description="the runyard thread (per user), as for /v1"
    )
    run_id: str = Field(description="the client's id of this run, echoed on RUN_STARTED/FINISHED")
    messages: list[AguiMessage]
    resume: list[ResumeEntry] | None = None
    state: Any = None
    tools: list[dict[str, Any]] | None = None
    context: list[dict[str, Any]] | None = None
    forwarded_props: Any = None

    def message(self) -> str:
        """The text of the last message, a user's; 422 naming the field otherwise."""
        if not self.messages or self.messages[-1].role != "user":
            raise invalid_field("messages", "the last message must be the user's (or send resume)")
        return user_text(self.messages[-1].text(), f"messages.{len(self.messages) - 1}.content")

    def answers(self) -> list[Answer]:
        """The runyard answer of each resume entry."""
        return [e.answer(f"resume.{i}.payload") for i, e in enumerate(self.resume or [])]
