"""The agent activity tree: what a run looks like once its events are folded together.

These are wire types too (the thread messages endpoint returns them), camelCase like the events.
``builder.py`` produces them; nothing here knows how.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field

from runyard.messages import ContentBlock
from runyard.protocol.confirmation import Confirmation
from runyard.protocol.payloads import AgentStatus, ErrorPayload, TargetResource, TaskItem
from runyard.protocol.wire_model import WireModel, omitted_if_none

__all__ = [
    "AgentNode",
    "AgentToolCall",
    "TimelineChild",
    "TimelineContent",
    "TimelineEntry",
    "TimelineReasoning",
    "TimelineText",
    "TimelineToolCall",
]


class AgentToolCall(WireModel):
    """One tool call of an agent: loading until its result or error arrives.

    A call waiting for the user carries the ``confirmation`` it asked for and stays loading.
    """

    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = omitted_if_none()
    error: str | None = omitted_if_none()
    is_loading: bool
    confirmation: Confirmation | None = omitted_if_none()


class TimelineText(WireModel):
    """A stretch of answer text (consecutive deltas form one entry)."""

    type: Literal["text"] = "text"
    content: str


class TimelineReasoning(WireModel):
    """A stretch of reasoning (consecutive deltas form one entry)."""

    type: Literal["reasoning"] = "reasoning"
    content: str


class TimelineToolCall(WireModel):
    """The point where the agent called a tool; details are in ``toolCalls``."""

    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str


class TimelineContent(WireModel):
    """The point where the agent produced whole content blocks (a ``content`` event's)."""

    type: Literal["content"] = "content"
    blocks: list[ContentBlock]


class TimelineChild(WireModel):
    """The point where the agent started a sub-agent; details are in ``children``."""

    type: Literal["child"] = "child"
    agent_id: str


TimelineEntry: TypeAlias = Annotated[
    TimelineText | TimelineReasoning | TimelineToolCall | TimelineContent | TimelineChild,
    Field(discriminator="type"),
]
"""One step of an agent's activity, in the order it happened."""


class AgentNode(WireModel):
    """One agent (the orchestrator at the root, sub-agents below) and everything it did.

    ``text_content`` and ``reasoning`` are the whole text, ``blocks`` every content block it
    produced (images, files, JSON, sources; absent when none); ``timeline`` interleaves them with
    tool calls and sub-agents in order. Sub-agent metadata (``tools``, ``kind``, ``goal``, …) comes
    from its ``agent-spawned`` event; ``result``/``error`` from ``agent-completed`` (or, at the
    root, the ``reason`` of a failed run); ``tasks`` from the latest ``tasks-update``.
    """

    agent_id: str
    role: str
    status: AgentStatus
    text_content: str = ""
    reasoning: str = ""
    tool_calls: list[AgentToolCall] = Field(default_factory=list)
    children: list[AgentNode] = Field(default_factory=list)
    timeline: list[TimelineEntry] = Field(default_factory=list)
    blocks: list[ContentBlock] | None = omitted_if_none()
    tools: list[str] | None = omitted_if_none()
    task_id: str | None = omitted_if_none()
    kind: str | None = omitted_if_none()
    title: str | None = omitted_if_none()
    subtitle: str | None = omitted_if_none()
    goal: str | None = omitted_if_none()
    target_resource: TargetResource | None = omitted_if_none()
    status_message: str | None = omitted_if_none()
    tasks: list[TaskItem] | None = omitted_if_none()
    result: str | None = omitted_if_none()
    error: str | None = omitted_if_none()
    error_details: ErrorPayload | None = omitted_if_none()
    cancellation_reason: str | None = omitted_if_none()
