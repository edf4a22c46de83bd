"""``http_request``: a tool factory for HTTP calls, bound to an allow-list of domains.

The tool uses the shared ``httpx.AsyncClient`` from ``ToolDependencies``. A URL whose host is not
on the allow-list is not refused outright: the call suspends and asks a person
(``domainAccess: {url, host}`` in the question, the ``confirmation-request`` field of the same
name); approved, that one call runs. Responses are read as a stream and cut off past
``max_response_bytes``; ``timeout_s`` bounds the whole exchange, redirects included. At most
``max_redirects`` redirects are followed (none by default), and only to the host the call was
for or an allow-listed one, so a redirect cannot lead the tool off its allow-list; a redirect
not followed is the result. Where the connections may go at all is the egress guard's decision
(``runyard.registry.tools.egress``, under the shared client): a refusal is a tool error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from runyard.errors import ToolError
from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.configuration import ToolConfiguration
from runyard.registry.tools.dependencies import ToolDependencies
from runyard.registry.tools.egress import MAX_REDIRECTS, EgressRefused
from runyard.registry.tools.execution_context import ExecutionContext
from runyard.registry.tools.parameters import factory_parameters
from runyard.tools import APPROVAL_RESUME, Suspend, Tool, ToolContext, ToolDenied

__all__ = ["HttpRequestFactory", "HttpRequestParameters", "domain_access_question"]

Method = Literal["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class HttpRequestParameters(BaseModel):
    """The parameters of an ``http_request`` tool spec."""

    model_config = ConfigDict(extra="forbid")

    description: str | None = None
    """What the model is told the tool is for (a default names the allowed domains)."""
    allowed_methods: list[Method] = Field(
        default_factory=lambda: list[Method](["GET"]), min_length=1
    )
    allowed_domains: list[str] = Field(default_factory=list)
    """Hosts reached without asking: ``api.example.com``, or ``*.example.com`` for subdomains."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Sent with every request; they win over headers of the same name the model sets."""
    max_response_bytes: int = Field(1_000_000, gt=0)
    timeout_s: float = Field(30.0, gt=0)
    max_redirects: int = Field(0, ge=0, le=MAX_REDIRECTS)
    """Redirects followed per call (each hop to the call's host or an allowed one)."""

    @field_validator("allowed_domains")
    @classmethod
    def _lowercase(cls, domains: list[str]) -> list[str]:
        return [domain.strip().lower() for domain in domains]

    def allows(self, host: str) -> bool:
        """Whether ``host`` is on the allow-list."""
        return any(_matches(pattern, host.lower()) for pattern in self.allowed_domains)


def _matches(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def domain_access_question(tool_name: str, url: str, host: str) -> dict[str, Any]:
    """The suspension payload asking whether ``tool_name`` may reach ``host``."""
    return {
        "type": "domain-access",
        "severity": "warning",
        "message": f'Allow "{tool_name}" to reach {host}?',
        "domainAccess": {"url": url, "host": host},
    }


class HttpRequestFactory:
    """Builds one ``http_request`` tool named after its catalog entry."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        params = factory_parameters(HttpRequestParameters, context, "http_request")
        call = _HttpCall(context.name, params, deps.http, exec_ctx)

        async def http_request(ctx: ToolContext, **arguments: Any) -> Any:
            return await call.run(arguments, ctx)

        tool = Tool.from_function(
            http_request,
            name=context.name,
            description=params.description or _describe(params),
            parameters=_arguments_schema(params),
            resume_schema=APPROVAL_RESUME.json_schema,
        )
        return ToolConfiguration.single(tool, context)


def _describe(params: HttpRequestParameters) -> str:
    domains = ", ".join(params.allowed_domains) or "none"
    return (
        f"Send an HTTP request ({', '.join(params.allowed_methods)}) and read the response. "
        f"Allowed without asking: {domains}; other hosts need the user's approval."
    )


def _arguments_schema(params: HttpRequestParameters) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "method": {"type": "string", "enum": list(params.allowed_methods)},
            "url": {"type": "string", "description": "An absolute http:// or https:// URL."},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "json": {"description": "A JSON body (sent as application/json)."},
            "text": {"type": "string", "description": "A text body."},
        },
        "required": ["method", "url"],
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class _Request:
    method: str
    url: str
    host: str
    headers: httpx.Headers
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _HttpCall:
    tool_name: str
    params: HttpRequestParameters
    client: httpx.AsyncClient
    exec_ctx: ExecutionContext

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        request = self._request(arguments)
        if not self.params.allows(request.host):
            if ctx.resume_data is None:
                return Suspend(domain_access_question(self.tool_name, request.url, request.host))
            if not ctx.resume_data.get("approved"):
                raise ToolDenied(f'Tool "{self.tool_name}" was not allowed to reach {request.host}')
        self.exec_ctx.emit_progress(f"{request.method} {request.url}")
        return await self._send(request)

    def _request(self, arguments: dict[str, Any]) -> _Request:
        url = _absolute_url(arguments["url"])
        if "json" in arguments and "text" in arguments:
            raise ToolError("give either a json or a text body, not both")
        headers = httpx.Headers(arguments.get("headers", {}))
        headers.update(self.params.headers)
        body: dict[str, Any] = {}
        if "json" in arguments:
            body["json"] = arguments["json"]
        elif "text" in arguments:
            body["content"] = arguments["text"].encode()
        return _Request(arguments["method"], str(url), url.host, headers, body)

    async def _send(self, request: _Request) -> dict[str, Any]:
        limit = self.params.timeout_s
        try:
            async with asyncio.timeout(limit):
                return await self._exchange(request)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise ToolError(f"no complete response from {request.host} within {limit:g}s") from exc
        except EgressRefused as exc:
            raise ToolError(f"request to {exc.host} refused: {exc.reason}") from exc
        except httpx.HTTPError as exc:
            raise ToolError(f"request to {request.host} failed: {exc}") from exc

    async def _exchange(self, request: _Request) -> dict[str, Any]:
        first = self.client.build_request(
            request.method,
            request.url,
            headers=request.headers,
            timeout=self.params.timeout_s,
            **request.body,
        )
        return await self._follow(first, request.host, self.params.max_redirects)

    async def _follow(
        self, outgoing: httpx.Request, first_host: str, hops_left: int
    ) -> dict[str, Any]:
        response = await self.client.send(outgoing, stream=True, follow_redirects=False)
        try:
            hop = self._next_hop(response, first_host, hops_left)
            if hop is None:
                return _result(response, await self._read(response, outgoing.url.host))
        finally:
            await response.aclose()
        return await self._follow(hop, first_host, hops_left - 1)

    def _next_hop(
        self, response: httpx.Response, first_host: str, hops_left: int
    ) -> httpx.Request | None:
        """The redirect to follow (httpx builds it: method, body and credentials per RFC 9110)."""
        hop = response.next_request
        if hop is None or hops_left <= 0 or hop.url.scheme not in ("http", "https"):
            return None
        if hop.url.host != first_host and not self.params.allows(hop.url.host):
            return None
        return hop

    async def _read(self, response: httpx.Response, host: str) -> bytes:
        limit = self.params.max_response_bytes
        too_large = ToolError(f"the response from {host} is larger than {limit} bytes")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise too_large
        content = bytearray()
        async for chunk in response.aiter_bytes():
            content.extend(chunk)
            if len(content) > limit:
                raise too_large
        return bytes(content)


def _absolute_url(text: str) -> httpx.URL:
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL:
        url = httpx.URL()
    if url.scheme not in ("http", "https") or not url.host:
        raise ToolError(f"not an absolute http(s) URL: {text!r}")
    return url


def _result(response: httpx.Response, content: bytes) -> dict[str, Any]:
    text = content.decode(response.encoding or "utf-8", errors="replace")
    result: dict[str, Any] = {
        "status": response.status_code,
        "headers": dict(response.headers),
        "body": text,
    }
    if "json" in response.headers.get("content-type", ""):
        # A body that is not the JSON it claims stays readable as text.
        with contextlib.suppress(ValueError):
            result["json"] = json.loads(text)
    return result
