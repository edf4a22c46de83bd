"""The parameters of an ``mcp`` tool spec: which server, how to reach it, which of its tools.

Two transports, told apart by ``transport``: ``stdio`` starts ``command`` as a subprocess and
``http`` talks streamable HTTP to ``url``. What reaches the server is only what the spec says:
a stdio server gets ``env`` on top of the few variables the ``mcp`` package passes so that a
command can start at all (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``), never
the rest of runyard's environment; an HTTP server gets ``headers`` and nothing from proxy or
certificate settings of the environment.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator
from pydantic_core import ErrorDetails

from runyard.errors import ConfigurationError

__all__ = [
    "HttpServer",
    "McpParameters",
    "McpServer",
    "StdioServer",
    "parse_parameters",
    "server_key",
]


class _Parameters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tools: tuple[str, ...] | None = None
    """The server's tools this entry offers (None: all it lists)."""
    connect_timeout_s: float = Field(10.0, gt=0)
    """Starting or reaching the server, the handshake and the listing, together."""
    call_timeout_s: float = Field(60.0, gt=0)
    """One tool call, from sending it to its result."""


class StdioServer(_Parameters):
    """A server run as a subprocess that speaks MCP on its stdin and stdout."""

    transport: Literal["stdio"]
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    """The server's environment, over the few variables a command needs to start."""
    cwd: str | None = None


class HttpServer(_Parameters):
    """A server reached over streamable HTTP at ``url``."""

    transport: Literal["http"]
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    """Sent with every request (a credential, for instance)."""

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return url


McpServer = StdioServer | HttpServer
McpParameters = TypeAdapter[McpServer](Annotated[McpServer, Field(discriminator="transport")])


def parse_parameters(tool_name: str, parameters: dict[str, object]) -> McpServer:
    """The validated parameters; a ``ConfigurationError`` names the tool and every bad field."""
    try:
        return McpParameters.validate_python(parameters)
    except ValidationError as exc:
        problems = "; ".join(_problem(error) for error in exc.errors())
        raise ConfigurationError(f"tool {tool_name!r} (mcp): {problems}") from exc


def _problem(error: ErrorDetails) -> str:
    if error["type"] in ("union_tag_not_found", "union_tag_invalid"):
        return "transport: must be 'stdio' or 'http'"
    # The first element of a tagged union's location is the tag ("stdio.command"): drop it.
    loc = error["loc"]
    path = loc[1:] if loc and loc[0] in ("stdio", "http") else loc
    return f"{'.'.join(map(str, path))}: {error['msg']}"


def server_key(server: McpServer) -> str:
    """What makes two specs the same server, sharing one connection: everything but the grant."""
    return server.model_dump_json(exclude={"tools"})
