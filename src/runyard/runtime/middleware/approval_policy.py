"""``ApprovalPolicy``: calls of the tools it names (and, optionally, only those whose arguments
meet a condition) wait for a person's approval before they run.

It does not ask on its own: it hands the call on with its tool behind the tool layer's approval
gate (``runyard.tools.require_approval``), the same gate ``@tool(requires_approval=True)`` uses.
So the question is the usual suspension with an approval payload (``confirmation-request`` in the
service), ``agent.approve`` / ``agent.deny`` (``POST /v1/confirm``) answer it, an approved call
runs and a denied one becomes a "denied" tool error the model reads.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from runyard.errors import ConfigurationError, ToolError
from runyard.runtime.middleware.base import CallTool, Middleware, ToolCallRequest
from runyard.tools import NeedsApproval, require_approval

__all__ = ["ApprovalPolicy"]


class ApprovalPolicy(Middleware):
    """Require approval for tools named by ``tool`` (a glob: ``http_*``) or ``tool_regex``
    (searched, so anchor it), for every call or only those ``when(args)`` is true for."""

    def __init__(
        self,
        tool: str | None = None,
        *,
        tool_regex: str | None = None,
        when: NeedsApproval | None = None,
    ) -> None:
        if (tool is None) == (tool_regex is None):
            raise ConfigurationError("approval_policy needs exactly one of tool or tool_regex")
        try:
            self._name = re.compile(
                fnmatch.translate(tool) if tool is not None else str(tool_regex)
            )
        except re.error as exc:
            raise ConfigurationError(
                f"approval_policy: tool_regex does not compile: {exc}"
            ) from exc
        self.when = when

    def applies_to(self, tool_name: str) -> bool:
        return self._name.search(tool_name) is not None

    async def wrap_tool_call(self, request: ToolCallRequest, call_next: CallTool) -> Any:
        if not self.applies_to(request.tool.name):
            return await call_next(request)
        try:
            gated = require_approval(request.tool, self.when)
        except ConfigurationError as exc:
            # Fail closed: a call the policy covers never runs unasked.
            raise ToolError(str(exc)) from exc
        return await call_next(ToolCallRequest(gated, request.args, request.context))
