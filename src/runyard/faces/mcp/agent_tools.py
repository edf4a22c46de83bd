"""The caller's agents as MCP tools, and the arguments a call of one carries.

An agent's catalog id is its tool's name as it is: ids are a letter or digit, then letters,
digits, ``.``, ``_`` and ``-`` (at most 64), which MCP's tool-name rule
(``[A-Za-z0-9._-]{1,128}``) already allows, so no name is rewritten and none can collide.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp.types import Tool, ToolAnnotations

from runyard.faces.mcp.content import block_arguments
from runyard.ids import THREAD_ID_PATTERN, is_thread_id
from runyard.json_text import is_storable
from runyard.messages import ContentBlock
from runyard.service import ServedAgent

__all__ = ["INPUT_SCHEMA", "AgentCallInput", "InvalidArguments", "agent_tools"]

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {
            "type": "string",
            "description": "What to ask the agent: the user message of a new run (empty only "
            "with content).",
        },
        "content": {
            "type": "array",
            "items": {"type": "object"},
            "description": "Images, audio and files beside the message: MCP content (image, "
            "audio, resource, resource_link) or runyard content blocks ({type: image|audio|"
            "video|file, mime_type, base64|url|file_id}).",
        },
        "threadId": {
            "type": "string",
            "pattern": THREAD_ID_PATTERN,
            "description": "The runyard thread to continue (the threadId of an earlier result); "
            "absent: a new thread.",
        },
    },
    "required": ["message"],
    "additionalProperties": False,
}
"""Every agent tool's ``inputSchema``."""


class InvalidArguments(ValueError):
    """A call's arguments do not fit ``INPUT_SCHEMA``; the message names the argument."""


@dataclass(frozen=True, slots=True)
class AgentCallInput:
    """The arguments of one agent tool call."""

    message: str
    thread_id: str | None
    content: list[ContentBlock] = field(default_factory=list)

    @classmethod
    def parse(cls, arguments: dict[str, Any] | None) -> AgentCallInput:
        """The call's arguments; ``InvalidArguments`` naming the first that is wrong."""
        given = dict(arguments or {})
        message = given.pop("message", "")
        thread_id = given.pop("threadId", None)
        try:
            content = block_arguments(given.pop("content", []))
        except ValueError as exc:
            raise InvalidArguments(str(exc)) from None
        if given:
            raise InvalidArguments(f"unknown argument(s): {', '.join(sorted(given))}")
        if not isinstance(message, str) or not (message.strip() or content):
            raise InvalidArguments("message: a non-empty string is required (or content)")
        if not is_storable(message):
            raise InvalidArguments("message: must not contain a NUL character or a lone surrogate")
        if thread_id is not None and not (isinstance(thread_id, str) and is_thread_id(thread_id)):
            raise InvalidArguments("threadId: 1-128 of A-Z a-z 0-9 . _ : @ -")
        return cls(message, thread_id, content)


def agent_tools(agents: list[ServedAgent]) -> list[Tool]:
    """One tool per agent the caller's tenant may run, the default first (as ``/v1/agents``)."""
    return [
        Tool(
            name=agent.name,
            title=agent.name,
            description=agent.description
            or f"Ask the runyard agent {agent.name!r} (tools: {', '.join(agent.tools) or 'none'}).",
            input_schema=INPUT_SCHEMA,
            # An agent's tools may change things; its approvals gate those that matter.
            annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True),
        )
        for agent in agents
    ]
