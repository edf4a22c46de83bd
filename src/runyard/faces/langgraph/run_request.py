"""``RunCreate``: the body of LangGraph Server's run routes (``runs.stream``, ``runs.wait``,
``runs.create``), as runyard reads it.

runyard keeps the conversation in the thread, so of ``input.messages`` only the last is read: a
human message (``{"role": "user"|"human", "content"}``, ``{"type": "human", ...}`` or a
``["user", text]`` pair) whose text, and LangChain content blocks beside it, start the run.
``command.resume`` answers the thread's waiting questions instead (``resume_answers``).

What runyard cannot do is refused with 422 naming the field, never ignored: ``interrupt_before``
/ ``interrupt_after`` (a runyard agent pauses only where a tool asks for approval),
``checkpoint`` / ``checkpoint_id`` (a run goes on from the thread's end), ``command.update`` /
``command.goto``, ``webhook``, ``after_seconds``, ``multitask_strategy`` ``rollback``, and the
stream modes ``debug``, ``tasks`` and ``checkpoints``. ``config``, ``context``, ``metadata``,
``durability``, ``stream_subgraphs``, ``stream_resumable`` (every runyard stream is resumable),
``feedback_keys`` and ``langsmith_tracer`` are accepted and not used.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runyard.faces.face_content import UserInput, media_from_url
from runyard.faces.invalid_body import invalid_field, user_text
from runyard.faces.langgraph.path_ids import ASSISTANT_ID_PATTERN
from runyard.ids import is_thread_id
from runyard.messages import (
    ContentBlock,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    from_langchain_block,
)

__all__ = ["STREAM_MODES", "AssistantRef", "Command", "RunCreate", "StreamMode"]

StreamMode = Literal["values", "messages", "messages-tuple", "updates", "custom", "events"]
STREAM_MODES: tuple[str, ...] = (
    "values",
    "messages",
    "messages-tuple",
    "updates",
    "custom",
    "events",
)
_REFUSED_MODES = {
    "debug": "runyard has no Pregel debug events",
    "tasks": "runyard has no Pregel tasks",
    "checkpoints": "runyard keeps no LangGraph checkpoints per step",
}

_NO_NODES = (
    "refused: a runyard agent pauses only where a tool asks for approval (requires_approval); "
    "it has no graph nodes to interrupt at"
)
_REFUSED_FIELDS = {
    "interrupt_before": _NO_NODES,
    "interrupt_after": _NO_NODES,
    "checkpoint": "refused: a runyard run goes on from the thread's end",
    "checkpoint_id": "refused: a runyard run goes on from the thread's end",
    "webhook": "refused: runyard sends no webhooks",
    "after_seconds": "refused: runyard starts runs at once",
}
"""Fields runyard cannot honour when given (a truthy value), and why."""
_ROLLBACK = (
    "`rollback` is refused: runyard never deletes a run from the thread's log; use `interrupt` "
    "(cancels the open run, keeping what it did)"
)

AssistantRef = Field(
    pattern=ASSISTANT_ID_PATTERN,
    description="the agent: its catalog id, or `agent@<version>` (a 64-hex content hash)",
    examples=["assistant"],
)


class Command(BaseModel):
    """LangGraph's ``Command``: of it runyard takes ``resume``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    resume: Any = None
    update: Any = None
    goto: Any = None


class RunCreate(BaseModel):
    """A run request."""

    model_config = ConfigDict(extra="ignore", strict=True)

    assistant_id: str = AssistantRef
    input: dict[str, Any] | None = Field(
        default=None, description='`{"messages": [...]}`: the last message, a human\'s, is read'
    )
    command: Command | None = Field(
        default=None, description='`{"resume": ...}` answers the waiting interrupts'
    )
    stream_mode: str | list[str] = Field(
        default="values",
        description="`values`, `messages`, `messages-tuple`, `updates`, `custom`, `events`",
    )
    stream_subgraphs: bool = False
    stream_resumable: bool = False
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    interrupt_before: Literal["*"] | list[str] | None = None
    interrupt_after: Literal["*"] | list[str] | None = None
    checkpoint: dict[str, Any] | None = None
    checkpoint_id: str | None = None
    checkpoint_during: bool | None = None
    durability: Literal["sync", "async", "exit"] | None = None
    webhook: str | None = None
    after_seconds: float | None = None
    multitask_strategy: Literal["reject", "interrupt", "rollback", "enqueue"] = "reject"
    if_not_exists: Literal["create", "reject"] = "create"
    on_disconnect: Literal["cancel", "continue"] | None = None
    on_completion: Literal["delete", "keep"] | None = None
    feedback_keys: list[str] | None = None
    langsmith_tracer: dict[str, Any] | None = None
    strict_resume: bool | None = None

    def agent(self) -> tuple[str, str | None]:
        """The agent id, and the version ``assistant_id`` pins (None: the one served)."""
        agent, _, version = self.assistant_id.partition("@")
        return agent, version or None

    def modes(self) -> list[str]:
        """The stream modes asked for (``messages-tuple`` and ``messages`` kept apart); 422
        naming ``stream_mode`` for one runyard cannot stream."""
        asked = [self.stream_mode] if isinstance(self.stream_mode, str) else self.stream_mode
        for mode in asked:
            if mode in _REFUSED_MODES:
                raise invalid_field("stream_mode", f"{mode!r} is refused: {_REFUSED_MODES[mode]}")
            if mode not in STREAM_MODES:
                raise invalid_field("stream_mode", f"{mode!r} is not a stream mode")
        return list(dict.fromkeys(asked)) or ["values"]

    def refuse_unsupported(self) -> None:
        """422 naming the first field runyard cannot honour."""
        self.modes()
        for name, refusal in _REFUSED_FIELDS.items():
            if getattr(self, name):
                raise invalid_field(name, refusal)
        if self.multitask_strategy == "rollback":
            raise invalid_field("multitask_strategy", _ROLLBACK)
        if self.command is not None:
            for name in ("update", "goto"):
                if getattr(self.command, name) is not None:
                    raise invalid_field(
                        f"command.{name}", "refused: runyard takes only `resume` of a command"
                    )
            if self.input is not None:
                raise invalid_field("input", "send `input` or `command.resume`, not both")

    def resumes(self) -> bool:
        """Whether the request answers waiting interrupts."""
        return self.command is not None and self.command.resume is not None

    def user_input(self) -> UserInput:
        """The last message of ``input.messages``, a human's; 422 naming the field otherwise."""
        messages = (self.input or {}).get("messages")
        if not isinstance(messages, list) or not messages:
            if self.command is not None:
                raise invalid_field("command.resume", "must be given (runyard takes only it)")
            raise invalid_field("input.messages", "must be a list with a human message last")
        at = len(messages) - 1
        role, content = _role_and_content(messages[at], f"input.messages.{at}")
        if role not in ("user", "human"):
            raise invalid_field(f"input.messages.{at}", "the last message must be the human's")
        path = f"input.messages.{at}.content"
        if isinstance(content, str):
            return UserInput(user_text(content, path))
        if not isinstance(content, list):
            raise invalid_field(path, "must be a string or a list of content blocks")
        blocks = [_block(block, f"{path}.{i}") for i, block in enumerate(content)]
        if all(isinstance(b, TextPart) for b in blocks):
            text = "".join(b.text for b in blocks if isinstance(b, TextPart))
            return UserInput(user_text(text, path))
        return UserInput("", blocks, f"body.{path}")

    def message_id(self) -> str | None:
        """The id the client gave its last message, when it is one runyard keeps (an id's
        characters, as a thread's); None: runyard makes one."""
        messages = (self.input or {}).get("messages") or []
        last = messages[-1] if isinstance(messages, list) and messages else None
        given = last.get("id") if isinstance(last, dict) else None
        return given if isinstance(given, str) and is_thread_id(given) else None


def _role_and_content(message: Any, path: str) -> tuple[str, Any]:
    """A message's role and content, whichever way LangChain writes it."""
    if isinstance(message, list | tuple) and len(message) == 2:
        return str(message[0]), message[1]
    if isinstance(message, str):
        return "user", message
    if not isinstance(message, dict):
        raise invalid_field(path, "must be a message object or a [role, content] pair")
    role = message.get("role") or message.get("type")
    if not isinstance(role, str):
        raise invalid_field(f"{path}.role", "a message needs a `role` (or `type`)")
    return role, message.get("content")


def _block(block: Any, path: str) -> ContentBlock:
    """One LangChain content block (or an OpenAI-style ``image_url`` one) as runyard's."""
    if isinstance(block, str):
        return TextPart(text=block)
    if not isinstance(block, dict):
        raise invalid_field(path, "must be a content block object")
    try:
        if block.get("type") == "image_url":
            given = block["image_url"]
            url = given["url"] if isinstance(given, dict) else given
            return media_from_url(str(url), ImagePart)
        part = from_langchain_block(block)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            error = exc.errors()[0]
            where = ".".join([path, *(str(p) for p in error["loc"])])
            raise invalid_field(where, error["msg"]) from None
        raise invalid_field(path, f"not a content block runyard takes: {exc}") from None
    if isinstance(part, ToolCallPart | ToolResultPart | ReasoningPart):
        raise invalid_field(f"{path}.type", f"{part.type!r} is not content a user sends")
    return part
