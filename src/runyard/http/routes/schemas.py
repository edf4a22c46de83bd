"""Request and response bodies of the ``/v1`` API (camelCase, as the streaming seed writes them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator

from runyard.http.routes.content_input import InputContentBlock
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
    """``POST /v1/chat/{threadId}``: the user's message, optionally for a named agent.

    ``content`` adds content blocks (images, audio, files, JSON) after the text, or stands
    instead of it (docs/content.md); one of the two is required."""

    # One of the two is required: said in the schema too, so clients and tools that generate
    # bodies from the OpenAPI document know it (``_says_something`` enforces it).
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "anyOf": [
                {"required": ["message"], "properties": {"message": {"minLength": 1}}},
                {"required": ["content"], "properties": {"content": {"minItems": 1}}},
            ]
        },
    )

    content: list[InputContentBlock] = Field(
        default_factory=list,
        description="content blocks beside (after) or instead of the text: "
        '{"type": "image", "mime_type": "image/png", "base64": "..."} | {"type": "file", '
        '"file_id": "..."} | {"type": "image", "url": "https://..."} | ... (docs/content.md)',
    )
    message: StorableStr = Field(
        default="", validate_default=True, description="the user's message"
    )
    agentId: str | None = Field(
        default=None,
        description="the agent to run (404 when the tenant has none of that id); default: the "
        "thread's agent, or for a new thread the one routing chooses",
    )
    agent: str | None = Field(default=None, description="the older name of agentId")
    context: RouteContext | None = Field(default=None, description="what routing rules read")

    @field_validator("message")
    @classmethod
    def _says_something(cls, message: str, info: ValidationInfo) -> str:
        # Content that failed its own validation is reported there, not here again.
        if not message and "content" in info.data and not info.data["content"]:
            raise ValueError("give a message, content blocks, or both")
        return message

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
