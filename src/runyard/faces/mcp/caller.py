"""``McpCaller``: whom an MCP request acts for, carried from the ``/mcp`` route (where the app's
dependencies decide it, as for ``/v1``) to the MCP handlers, in the request's ASGI scope.

The ``mcp`` package hands each handler the Starlette request of the HTTP request that carried
its message (``ctx.request``), on a session's task that is not the request's; the scope is what
both share. A handler reads the caller of its own HTTP request, never the session's opener's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.types import Scope

from runyard.service import Owner, ServiceParts

__all__ = ["McpCaller", "request_caller", "with_caller"]

_SCOPE_KEY = "runyard.mcp_caller"


@dataclass(frozen=True, slots=True)
class McpCaller:
    """The ready service parts and the owner one request acts for, and the event set when the
    server goes away (a call running for it ends then)."""

    parts: ServiceParts
    owner: Owner
    going_away: asyncio.Event


def with_caller(scope: Scope, caller: McpCaller) -> Scope:
    """``scope`` carrying ``caller``."""
    return {**scope, _SCOPE_KEY: caller}


def request_caller(request: Any) -> McpCaller:
    """The caller of the HTTP request an MCP handler runs for (its ``ctx.request``)."""
    if not isinstance(request, Request) or not isinstance(
        caller := request.scope.get(_SCOPE_KEY), McpCaller
    ):
        raise RuntimeError("an MCP request reached runyard without passing the /mcp route")
    return caller
