"""``UseChatRequest``: the body ``useChat`` (``DefaultChatTransport``) posts to ``/ai-sdk/{agentId}``.

``id`` is the chat, runyard's thread. runyard keeps the conversation itself, so of ``messages``
only the last is read: a ``user`` message starts a run with its text and ``file`` parts (a
``data:`` URL or a URL, its ``mediaType`` and ``filename``: an image, a PDF, ...); an ``assistant``
message whose tool parts carry answered approvals (``addToolApprovalResponse``, state
``approval-responded``) answers those confirmations and carries the suspended run on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runyard.faces.face_content import UserInput, media_from_url
from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field, user_text
from runyard.ids import THREAD_ID_PATTERN
from runyard.messages import ContentBlock, TextPart

__all__ = ["UseChatRequest", "UiMessage"]


class UiMessage(BaseModel):
    """A ``UIMessage``; its ``parts`` are read as the AI SDK writes them."""

    model_config = ConfigDict(extra="allow")

    id: str
    role: Literal["system", "user", "assistant"]
    parts: list[dict[str, Any]]

    def text(self) -> str:
        """The text parts, joined by blank lines."""
        texts = [p.get("text") for p in self.parts if p.get("type") == "text"]
        return "\n\n".join(t for t in texts if isinstance(t, str))

    def approvals(self) -> list[tuple[int, dict[str, Any]]]:
        """Each answered approval of a tool part, with the part's index."""
        return [
            (i, p["approval"])
            for i, p in enumerate(self.parts)
            if p.get("state") == "approval-responded" and isinstance(p.get("approval"), dict)
        ]


class UseChatRequest(BaseModel):
    """What ``useChat`` sends: the chat id, its messages, and why it sends them."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(
        pattern=THREAD_ID_PATTERN, description="the chat: the runyard thread (per user)"
    )
    messages: list[UiMessage] = Field(min_length=1)
    trigger: Literal["submit-message", "regenerate-message"] | None = None
    message_id: str | None = Field(default=None, alias="messageId")

    def resumes(self) -> bool:
        """Whether the request answers approvals rather than sending a message."""
        last = self.messages[-1]
        return last.role == "assistant" and bool(last.approvals())

    def message(self) -> UserInput:
        """The last message, a user's: its text, and its file parts as content blocks; 422
        naming the field otherwise."""
        at = len(self.messages) - 1
        last = self.messages[at]
        if last.role != "user":
            raise invalid_field(
                f"messages.{at}.role",
                "the last message must be the user's, or an assistant message with answered "
                "tool approvals",
            )
        path = f"messages.{at}.parts"
        if not any(p.get("type") == "file" for p in last.parts):
            return UserInput(user_text(last.text(), path))
        blocks = [
            _block(part, f"{path}.{index}")
            for index, part in enumerate(last.parts)
            if part.get("type") in ("text", "file")
        ]
        return UserInput("", blocks, f"body.{path}")

    def answers(self) -> list[Answer]:
        """The answer of each approval in the last message (its ``id`` is the requestId)."""
        at = len(self.messages) - 1
        answers = []
        for index, approval in self.messages[at].approvals():
            field = f"messages.{at}.parts.{index}.approval"
            request_id, approved = approval.get("id"), approval.get("approved")
            if not isinstance(request_id, str) or not isinstance(approved, bool):
                raise invalid_field(field, 'must be {"id": "<requestId>", "approved": bool}')
            answer: dict[str, Any] = {"approved": approved}
            if isinstance(approval.get("reason"), str):
                answer["reason"] = approval["reason"]
            answers.append(Answer(request_id, answer))
        return answers

    def denied_calls(self) -> set[str]:
        """The tool calls whose approval this request denies."""
        last = self.messages[-1]
        return {
            str(last.parts[i].get("toolCallId"))
            for i, approval in last.approvals()
            if approval.get("approved") is False
        }


def _block(part: dict[str, Any], path: str) -> ContentBlock:
    """A UI message's text or file part as a content block (its index kept in ``path``)."""
    if part["type"] == "text":
        return TextPart(text=str(part.get("text", "")))
    url, media_type = part.get("url"), part.get("mediaType")
    if not isinstance(url, str) or not isinstance(media_type, str):
        raise invalid_field(path, "a file part needs its url and mediaType")
    try:
        return media_from_url(url, mime_type=media_type, filename=part.get("filename"))
    except ValidationError as exc:
        error = exc.errors()[0]
        raise invalid_field(
            ".".join([path, *(str(p) for p in error["loc"])]), error["msg"]
        ) from None
