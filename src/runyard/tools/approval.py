"""The approval gate: the policy that wraps a gated tool's call.

A gated call first suspends with an approval payload; resumed with ``{"approved": true}`` it runs
the tool (with ``"args"``: on the arguments the person edited, checked as the model's are), with
``{"approved": false}`` it fails with "denied" so the model learns the user said no.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

from runyard.errors import ConfigurationError, ToolError
from runyard.tools.context import ToolContext
from runyard.tools.suspend import Suspend
from runyard.tools.tool import NeedsApproval, Tool
from runyard.tools.validation import JsonSchemaValidator, Validator

__all__ = [
    "APPROVAL_RESUME",
    "ToolDenied",
    "invoke_tool",
    "require_approval",
    "resume_validator",
]

APPROVAL_RESUME = JsonSchemaValidator(
    {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "reason": {"type": "string"},
            "args": {"type": "object"},
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
    edited = answer.get("args")
    if edited is not None:  # the person approved the call with arguments of their own
        try:
            args = tool.validate_args(edited)
        except ValueError as exc:
            raise ToolError(f'Tool "{tool.name}": the edited arguments are invalid: {exc}') from exc
    # A tool that takes approval answers itself (http_request off its allow-list) gets this
    # one: the person approved this very call and is not asked about it twice.
    passed_on = answer if tool.resume_validator is not None else None
    return await tool.call(args, replace(ctx, resume_data=passed_on))


def require_approval(tool: Tool, when: NeedsApproval | None = None) -> Tool:
    """``tool`` behind the approval gate: every call, or those ``when(args)`` is true for, on
    top of any gate it had. An approval policy (middleware) uses it, so policy and
    ``requires_approval`` ask, resume and deny the same way.

    A tool whose own questions expect other answers than approval (its resume schema) cannot
    be gated: ``ConfigurationError``.
    """
    own = tool.resume_validator
    if own is not None and own.json_schema != APPROVAL_RESUME.json_schema:
        raise ConfigurationError(
            f"Tool {tool.name!r} asks its own questions (a resume schema); "
            "an approval gate cannot be put in front of it"
        )
    if tool.requires_approval:
        return tool
    if when is None:
        return replace(tool, requires_approval=True, needs_approval=None)
    earlier, policy = tool.needs_approval, when

    async def needs_approval(args: dict[str, Any]) -> bool:
        return await _decide(policy, args) or (earlier is not None and await _decide(earlier, args))

    return replace(tool, needs_approval=needs_approval)


async def _needs_approval(tool: Tool, args: dict[str, Any]) -> bool:
    if tool.requires_approval:
        return True
    assert tool.needs_approval is not None
    return await _decide(tool.needs_approval, args)


async def _decide(needs_approval: NeedsApproval, args: dict[str, Any]) -> bool:
    decision = needs_approval(args)
    if inspect.isawaitable(decision):
        decision = await decision
    return bool(decision)
