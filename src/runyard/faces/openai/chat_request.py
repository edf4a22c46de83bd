"""``ChatCompletionRequest``: the body the ``openai`` client posts to ``/chat/completions``, and
what runyard reads of it.

``model`` names the agent (``agent`` or ``agent@version``); the last message is the user's
input (its text, and its ``image_url``, ``input_audio`` and ``file`` parts as content blocks:
``content_parts``); the earlier ones are the conversation when no thread is named. ``x_runyard.answers``
(``extra_body`` in the ``openai`` client) answers the approvals a run of the thread waits for.
Generation settings (``temperature``, ``max_tokens``, ``top_p``, ``stop``, ...) are accepted and
ignored: the agent's spec decides them. What runyard cannot honour is refused, naming the field:
client-side ``tools``/``functions`` (the agent's tools run on the server), ``n`` above 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from runyard.faces.face_content import UserInput
from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field, user_text
from runyard.faces.openai.content_parts import user_content
from runyard.ids import REQUEST_ID_PATTERN, THREAD_ID_PATTERN
from runyard.json_text import is_storable
from runyard.messages import AgentMessage, ContentBlock, Role, TextPart

__all__ = [
    "ChatCompletionRequest",
    "ChatMessage",
    "EarlierMessage",
    "RunyardAnswer",
    "RunyardExtension",
]

_MODEL = re.compile(r"^(?P<agent>[A-Za-z0-9][A-Za-z0-9._-]{0,63})(?:@(?P<version>[0-9a-f]{64}))?$")
"""An agent id, then optionally ``@`` and one of its versions (the 64 hex of its content hash)."""

_HISTORY_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}
"""The roles of earlier messages, as runyard stores them (no tool messages: tools run here)."""


class ChatMessage(BaseModel):
    """One message of ``messages``; its ``content`` a string or content parts (a user's
    images, audio and files as content blocks; of other roles only the text is read)."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The content's text: the string, or the ``text`` parts joined by blank lines."""
        if isinstance(self.content, str) or self.content is None:
            return self.content or ""
        texts = [p.get("text") for p in self.content if p.get("type") == "text"]
        return "\n\n".join(t for t in texts if isinstance(t, str))


@dataclass(frozen=True, slots=True)
class EarlierMessage:
    """A message before the last, as a new thread stores it: its role and blocks, and where
    they sit in the body (``body.messages.1.content``), so a refused block is named as the
    client wrote it."""

    role: Role
    blocks: list[ContentBlock]
    field: str

    def message(self) -> AgentMessage:
        """The message as history keeps it."""
        return AgentMessage(role=self.role, parts=list(self.blocks))


class RunyardAnswer(BaseModel):
    """The answer to one approval a run waits for (``x_runyard.approvals`` of the response)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    request_id: str = Field(alias="requestId", pattern=REQUEST_ID_PATTERN)
    approved: bool
    reason: str | None = None

    @field_validator("reason")
    @classmethod
    def _storable(cls, reason: str | None) -> str | None:
        if reason is not None and not is_storable(reason):
            raise ValueError("must not contain a NUL character or a lone surrogate")
        return reason


class RunyardExtension(BaseModel):
    """``x_runyard`` of the request: runyard's own fields."""

    model_config = ConfigDict(extra="forbid")

    answers: list[RunyardAnswer] = Field(min_length=1)


class StreamOptions(BaseModel):
    """``stream_options``: only ``include_usage`` is read."""

    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    """What the ``openai`` client sends to ``chat.completions.create``."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(
        description="the agent: its catalog id (`assistant` without a catalog), or "
        "`agent@version` to pin one of its versions (the content hash)",
        examples=["assistant"],
    )
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = Field(
        default=None,
        pattern=THREAD_ID_PATTERN,
        description="the runyard thread to use (its memory), unless `X-Runyard-Thread` names one",
    )
    n: int | None = Field(default=None, ge=1, le=1, description="only 1 choice is made")
    tools: list[Any] | None = Field(
        default=None,
        description="refused: the agent's own tools run on the server (no client-side tools)",
    )
    functions: list[Any] | None = Field(default=None, description="refused, as `tools`")
    x_runyard: RunyardExtension | None = None

    @field_validator("model")
    @classmethod
    def _agent_and_version(cls, model: str) -> str:
        if not _MODEL.match(model):
            raise ValueError("must be an agent id, or agent@version (its 64-hex version)")
        return model

    @field_validator("tools", "functions")
    @classmethod
    def _no_client_tools(cls, tools: list[Any] | None) -> None:
        if tools is not None:
            raise ValueError(
                "client-side tools are not supported: the agent's tools run on the server"
            )

    def agent(self) -> tuple[str, str | None]:
        """The agent id, and the version ``model`` pins (None: the one served)."""
        matched = _MODEL.match(self.model)
        assert matched is not None  # checked by the validator
        return matched["agent"], matched["version"]

    def include_usage(self) -> bool:
        """Whether a stream ends with a ``usage`` chunk."""
        return self.stream_options is not None and self.stream_options.include_usage

    def user_input(self) -> UserInput:
        """The last message, a user's: its text, or its content parts as blocks (images,
        audio, files beside the text); 422 naming the field otherwise."""
        at = len(self.messages) - 1
        last = self.messages[at]
        if last.role != "user":
            raise invalid_field(f"messages.{at}.role", "the last message must be the user's")
        path = f"messages.{at}.content"
        if isinstance(last.content, list) and any(p.get("type") != "text" for p in last.content):
            blocks = user_content(last.content, path)
            return UserInput("", blocks, f"body.{path}")
        return UserInput(user_text(last.text(), path))

    def history(self) -> list[EarlierMessage]:
        """The messages before the last, as the conversation a new thread starts with:
        system (and developer) prompts, the assistant's text, the user's text and content
        parts (images, audio, files: as the last message's); tool messages, which belong to
        tools the client ran, are refused. Empty messages are left out."""
        history = []
        for at, message in enumerate(self.messages[:-1]):
            role = _HISTORY_ROLES.get(message.role)
            if role is None:
                raise invalid_field(
                    f"messages.{at}.role", "client-side tool results are not supported"
                )
            blocks = _earlier_blocks(role, message, f"messages.{at}.content")
            if blocks:
                history.append(EarlierMessage(role, blocks, f"body.messages.{at}.content"))
        return history

    def answers(self) -> list[Answer]:
        """The answers ``x_runyard`` carries (empty when it carries none)."""
        if self.x_runyard is None:
            return []
        answers = []
        for given in self.x_runyard.answers:
            answer: dict[str, Any] = {"approved": given.approved}
            if given.reason is not None:
                answer["reason"] = given.reason
            answers.append(Answer(given.request_id, answer))
        return answers


def _earlier_blocks(role: Role, message: ChatMessage, path: str) -> list[ContentBlock]:
    """A user's content parts as blocks, in order (its images kept); else the text."""
    content = message.content
    if (
        role == "user"
        and isinstance(content, list)
        and any(p.get("type") != "text" for p in content)
    ):
        return user_content(content, path)
    text = message.text()
    if not is_storable(text):
        raise invalid_field(path, "must not contain a NUL character or a lone surrogate")
    return [TextPart(text=text)] if text else []
