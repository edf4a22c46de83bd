"""The approval gate: the policy that wraps a gated tool's call.

A gated call first suspends with an approval payload; resumed with ``{"approved": true}`` it runs
the tool, with ``{"approved": false}`` it fails with "denied" so the model learns the user said no.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

from runyard.errors import ToolError
from runyard.tools.context import ToolContext
from runyard.tools.suspend import Suspend
from runyard.tools.tool import Tool
from runyard.tools.validation import JsonSchemaValidator, Validator

__all__ = ["APPROVAL_RESUME", "ToolDenied", "invoke_tool", "resume_validator"]

APPROVAL_RESUME = JsonSchemaValidator(
    {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "reason": {"type": "string"},
        },
        "required": ["approved"],
    }
)


class ToolDenied(ToolError):
    """A person declined the call."""


def resume_validator(tool: Tool) -> Validator | None:
    """How resume data for ``tool`` is validated: the approval answer or the tool's own schema."""
    return APPROVAL_RESUME if tool.gated else tool.resume_validator


async def invoke_tool(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
    """Run ``tool`` through its policies; returns its raw result or a ``Suspend``."""
    if not tool.gated:
        return await tool.call(args, ctx)
    if ctx.resume_data is None:
        if await _needs_approval(tool, args):
            return Suspend({"type": "approval", "tool_name": tool.name, "args": args})
        return await tool.call(args, ctx)
    answer = ctx.resume_data
    if not answer.get("approved"):
        reason = answer.get("reason")
        suffix = f": {reason}" if reason else ""
        raise ToolDenied(f'Tool "{tool.name}" was denied by the user{suffix}')
    return await tool.call(args, replace(ctx, resume_data=None))


async def _needs_approval(tool: Tool, args: dict[str, Any]) -> bool:
    if tool.requires_approval:
        return True
    assert tool.needs_approval is not None
    decision = tool.needs_approval(args)
    if inspect.isawaitable(decision):
        decision = await decision
    return bool(decision)
