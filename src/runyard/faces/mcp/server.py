"""``McpServer``: the ``mcp`` package's low-level ``Server`` offering the caller's agents as tools,
served over streamable HTTP by its ``StreamableHTTPSessionManager``.

The manager runs **stateful** for the handshake-era protocol versions (2025-03-26 to
2025-11-25, what MCP hosts speak today): a session per client, so a running call can ask its
client an elicitation and read the answer on the same session. A 2026-07-28 client's requests
are each self-contained whatever the mode (no session; approvals come back as a retry of the
call), so those need no stickiness across replicas; handshake-era sessions live in the replica
that opened them (route ``Mcp-Session-Id`` to it). A session is bound to the owner that opened
it, as the ``mcp`` package binds a session to the credentials that opened it: another key
using its id gets 404.

This module imports ``mcp`` (seconds), so the route loads it on the first ``/mcp`` request only.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server import Server, ServerRequestContext
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolRequestParams, ListToolsResult, PaginatedRequestParams
from starlette.types import Receive, Scope, Send

from runyard.faces.mcp.agent_call import AgentResult, call_agent
from runyard.faces.mcp.agent_tools import agent_tools
from runyard.faces.mcp.caller import McpCaller, request_caller, with_caller

__all__ = ["McpServer"]

_INSTRUCTIONS = (
    "Each tool is a runyard agent: call it with a message (and the threadId of an earlier "
    "result to continue that conversation); the result is the agent's answer."
)


class McpServer:
    """The MCP server of one app; ``running`` must be entered (it owns the sessions' tasks)
    while ``handle`` serves requests."""

    def __init__(self) -> None:
        self.server: Server[Any] = Server(
            "runyard",
            title="runyard agents",
            instructions=_INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        # No DNS-rebinding check of its own: /mcp is behind the app's keys and CORS, as /v1.
        self.sessions = StreamableHTTPSessionManager(self.server)

    def running(self) -> AbstractAsyncContextManager[None]:
        """The sessions' task group, open while the block runs."""
        return self.sessions.run()

    async def handle(self, scope: Scope, receive: Receive, send: Send, caller: McpCaller) -> None:
        """Serve one HTTP request to ``/mcp`` for ``caller``."""
        owner = caller.owner
        token = AccessToken(token="", client_id=owner.tenant_id, subject=owner.user_id, scopes=[])
        scope = {**with_caller(scope, caller), "user": AuthenticatedUser(token)}
        await self.sessions.handle_request(scope, receive, send)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        caller = request_caller(ctx.request)
        return ListToolsResult(
            tools=agent_tools(caller.parts.agents.served(caller.owner.tenant_id))
        )

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> AgentResult:
        caller = request_caller(ctx.request)
        served = caller.parts.agents.served(caller.owner.tenant_id)
        if params.name not in {agent.name for agent in served}:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        return await call_agent(ctx, caller, params.name, params)
