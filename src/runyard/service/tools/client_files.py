"""``client_files``: the agent reads a file, or lists a folder, on the machine of the client that
drives the thread (a local gateway, a CLI), which the server cannot reach itself.

The call suspends its run like a question, and the run logs ``filesystem-request`` (not a
``confirmation-request``: there is nothing for a person to approve in the web UI) with the
operation and its arguments. The client answers ``POST /v1/confirm/{requestId}`` with what it
read — ``{"approved": true, "content": "..."}`` or ``{"approved": true, "entries": [...]}`` — or
refuses (``{"approved": false, "reason": "..."}``, or ``"error"``), and the call goes on with
that answer as its result, or fails with the refusal as its tool error.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runyard.errors import ToolError
from runyard.tools import Suspend, Tool, ToolContext, tool

__all__ = ["CLIENT_FILES", "client_files"]

CLIENT_FILES = "client_files"
"""The tool's name: the one a suspended call's question is told apart by."""


class ClientAnswer(BaseModel):
    """What the client answers (``POST /v1/confirm/{requestId}``)."""

    model_config = ConfigDict(extra="allow")

    approved: bool = True
    content: str | None = Field(default=None, description="read_file: the file's text")
    entries: list[Any] | None = Field(default=None, description="list_directory: its entries")
    error: str | None = Field(default=None, description="why the client could not")
    reason: str | None = Field(default=None, description="why the client would not")


async def _client_files(
    ctx: ToolContext, operation: Literal["read_file", "list_directory"], path: str
) -> Any:
    """Read a file, or list a folder, on the user's own machine (through their client).

    Args:
        operation: read_file for a file's text, list_directory for a folder's entries.
        path: the file or folder, as the user's machine names it.
    """
    answer = ctx.resume_data
    if answer is None:
        return Suspend({"type": "filesystem", "operation": operation, "args": {"path": path}})
    assert isinstance(answer, ClientAnswer)  # the tool's resume schema validated it
    if not answer.approved or answer.error is not None:
        why = answer.error or answer.reason or "refused"
        raise ToolError(f"the client did not {operation.replace('_', ' ')}: {why}")
    return answer.model_dump(exclude={"approved"}, exclude_none=True)


client_files: Tool = tool(name=CLIENT_FILES, resume_schema=ClientAnswer)(_client_files)
