"""Request and response bodies of the ``/v1`` API (camelCase, as the streaming seed writes them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from runyard.http.routes.user_text import StorableJson, StorableStr

__all__ = ["ChatRequest", "ChatResponse", "ConfirmRequest", "OkResponse"]


class ChatRequest(BaseModel):
    """``POST /v1/chat/{threadId}``: the user's message, optionally for a named agent."""

    model_config = ConfigDict(extra="forbid")

    message: StorableStr = Field(min_length=1, description="the user's message")
    agent: str | None = Field(default=None, description="the agent to run; default: the thread's")


class ChatResponse(BaseModel):
    """The id of the run the message started; its events arrive on the thread's SSE stream."""

    runId: str  # the wire name


class ConfirmRequest(BaseModel):
    """``POST /v1/confirm/{requestId}``: the answer to a ``confirmation-request``.

    ``approved`` is required; the other fields answer richer questions (``userInput`` for
    text, ``answers`` for questionnaires, …). Unknown fields pass through to the waiting tool,
    which validates the whole answer against its resume schema.
    """

    model_config = ConfigDict(extra="allow")

    approved: StrictBool
    reason: StorableStr | None = None
    userInput: StorableStr | None = None
    answers: list[dict[StorableStr, StorableJson]] | None = None
    __pydantic_extra__: dict[str, StorableJson] = Field(init=False)

    def answer(self) -> dict[str, Any]:
        """The answer as the tool receives it: only the fields that were given."""
        return self.model_dump(exclude_none=True)


class OkResponse(BaseModel):
    """The request was carried out."""

    ok: bool = True
