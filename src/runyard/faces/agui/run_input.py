"""``RunAgentInput``: the body of ``POST /agui/{agentId}``, AG-UI's run request, as runyard reads it.

runyard keeps the conversation itself (the thread's memory), so of ``messages`` only the last
one is read: a ``user`` message starts a run with its text and its media parts (``image``,
``audio``, ``video``, ``document``, each with a ``data``, ``url`` or runyard ``file`` source; the
legacy ``binary`` part too) as content blocks. ``resume`` answers the interrupts a
suspended run ended with (each an approval, its ``interruptId`` the ``requestId``) and carries
that run on. ``state``, ``tools``, ``context`` and ``forwardedProps`` are accepted and unused:
an agent's tools are its catalog's and run on the server.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from runyard.faces.face_content import UserInput, media_kind
from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field, user_text
from runyard.ids import REQUEST_ID_PATTERN, THREAD_ID_PATTERN
from runyard.messages import (
    AudioPart,
    ContentBlock,
    FilePart,
    ImagePart,
    MediaPart,
    TextPart,
    VideoPart,
)

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

    def message(self) -> UserInput:
        """The last message, a user's: its text, and its media parts as content blocks; 422
        naming the field otherwise."""
        if not self.messages or self.messages[-1].role != "user":
            raise invalid_field("messages", "the last message must be the user's (or send resume)")
        last, path = self.messages[-1], f"messages.{len(self.messages) - 1}.content"
        if not isinstance(last.content, list) or all(p.get("type") == "text" for p in last.content):
            return UserInput(user_text(last.text(), path))
        blocks = [_block(part, f"{path}.{index}") for index, part in enumerate(last.content)]
        return UserInput("", blocks, f"body.{path}")

    def answers(self) -> list[Answer]:
        """The runyard answer of each resume entry."""
        return [e.answer(f"resume.{i}.payload") for i, e in enumerate(self.resume or [])]


_KINDS: dict[str, type[MediaPart]] = {
    "image": ImagePart,
    "audio": AudioPart,
    "video": VideoPart,
    "document": FilePart,
}


def _block(part: dict[str, Any], path: str) -> ContentBlock:
    """An AG-UI content part as a content block; 422 naming it when runyard cannot take it."""
    kind = part.get("type")
    try:
        if kind == "text":
            return TextPart(text=part["text"])
        if kind in _KINDS:
            return _media(_KINDS[kind], part["source"], part.get("metadata"))
        if kind == "binary":  # before AG-UI 1.0
            fields = {"mime_type": part["mimeType"], "filename": part.get("filename")}
            if part.get("data"):
                return media_kind(part["mimeType"])(base64=part["data"], **fields)
            if part.get("url"):
                return media_kind(part["mimeType"])(url=part["url"], **fields)
            return media_kind(part["mimeType"])(file_id=part["id"], **fields)
    except (KeyError, TypeError) as exc:
        raise invalid_field(path, f"missing or malformed: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        raise invalid_field(
            ".".join([path, *(str(p) for p in error["loc"])]), error["msg"]
        ) from None
    raise invalid_field(f"{path}.type", f"{kind!r} is not a content part runyard takes")


def _media(kind: type[MediaPart], source: dict[str, Any], metadata: Any) -> MediaPart:
    extras = metadata if isinstance(metadata, dict) and metadata else None
    mime_type = source.get("mimeType")
    where = {"data": "base64", "url": "url", "file": "file_id"}[source["type"]]
    return kind(mime_type=mime_type, extras=extras, **{where: source["value"]})
