"""Request and response bodies of the ``/v1`` API (camelCase, as the streaming seed writes them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from runyard.http.routes.user_text import StorableJson, StorableStr

__all__ = [
    "ActivateRequest",
    "ChatRequest",
    "ChatResponse",
    "ConfirmRequest",
    "OkResponse",
    "RouteContext",
    "RouteRequest",
]


class RouteContext(BaseModel):
    """What routing rules may read of a request besides its tenant and user (the identity
    headers): docs/catalog.md, "The invocation context". Strict: a value of another type is a
    422 naming the field."""

    model_config = ConfigDict(extra="forbid", strict=True)

    user_role: StorableStr | None = Field(default=None, description="the user's role")
    ui_page: StorableStr | None = Field(
        default=None, description="where in the UI the request comes from"
    )
    flags: dict[StorableStr, StorableJson] = Field(
        default_factory=dict, description="the caller's switches"
    )
    metadata: dict[StorableStr, StorableJson] = Field(
        default_factory=dict, description="anything else"
    )

    def fields(self) -> dict[str, Any]:
        """The context as routing reads it: only the fields that were given."""
        return self.model_dump(exclude_none=True)


class ChatRequest(BaseModel):
    """``POST /v1/chat/{threadId}``: the user's message, optionally for a named agent."""

    model_config = ConfigDict(extra="forbid")

    message: StorableStr = Field(min_length=1, description="the user's message")
    agentId: str | None = Field(
        default=None,
        description="the agent to run (404 when the tenant has none of that id); default: the "
        "thread's agent, or for a new thread the one routing chooses",
    )
    agent: str | None = Field(default=None, description="the older name of agentId")
    context: RouteContext | None = Field(default=None, description="what routing rules read")

    def agent_id(self) -> str | None:
        """``agentId``, else ``agent``."""
        return self.agentId or self.agent


class RouteRequest(BaseModel):
    """``POST /v1/route``: the dry run of routing for the caller's tenant and user."""

    model_config = ConfigDict(extra="forbid")

    context: RouteContext = Field(default_factory=RouteContext)
    agentId: str | None = Field(default=None, description="an agent the request would name")


class ActivateRequest(BaseModel):
    """``POST /v1/admin/agents/{id}/activate``: the stored version to serve."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="a content hash `GET …/versions` lists")


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
