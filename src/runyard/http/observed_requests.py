"""``ObservedRequests``: the ASGI middleware that gives every HTTP request its id, span and timing.

- ``X-Request-ID``: a valid one from the client is kept, anything else is replaced by a new id;
  either way it is returned in the response and bound to the request's log lines (and to those
  of the runs it starts, whose tasks inherit the context).
- A server span ``{method} {route}`` when tracing is on, continuing a W3C ``traceparent`` the
  client sent; it is the current span while the app handles the request, so a run started by the
  request is its child.
- ``runyard_http_request_duration_seconds{method, route, status}``, by the route's template
  (``/v1/chat/{thread_id}``), never the raw path; unmatched paths count as ``unmatched``.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from runyard.observability import (
    REQUEST_ID_HEADER,
    Metrics,
    Tracing,
    bind_log_context,
    request_id,
)

__all__ = ["ObservedRequests"]

_HEADER = REQUEST_ID_HEADER.lower().encode()
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""Methods counted by name; any other (a client may send anything) counts as ``OTHER``."""
_PROPAGATOR = TraceContextTextMapPropagator()


class ObservedRequests:
    """Request ids, request spans and request timing around ``app`` (HTTP requests only)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, tracing: Tracing) -> None:
        self.app = app
        self.metrics = metrics
        self.tracing = tracing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = None
        for name, value in scope["headers"]:
            if name.lower() == _HEADER:
                given = value  # the last one, as a dict of the headers would keep
        rid = request_id(given.decode("latin-1") if given is not None else None)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != _HEADER]
                message["headers"] = [*kept, (_HEADER, rid.encode())]
            await send(message)

        span = self._start_span(scope)
        token = otel_context.attach(trace.set_span_in_context(span)) if span else None
        try:
            with bind_log_context(request_id=rid):
                await self.app(scope, receive, send_with_id)
        finally:
            if token is not None:
                otel_context.detach(token)
            route = _route(scope)
            seconds = time.perf_counter() - started
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            self.metrics.http_request_duration.labels(method, route, str(status)).observe(seconds)
            if span is not None:
                _end_span(span, scope, route, status, rid)

    def _start_span(self, scope: Scope) -> trace.Span | None:
        tracer = self.tracing.tracer
        if tracer is None:
            return None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        return tracer.start_span(
            scope["method"],  # renamed once the route is known
            context=_PROPAGATOR.extract(headers),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": scope["method"], "url.path": scope["path"]},
        )


def _route(scope: MutableMapping[str, Any]) -> str:
    """The template of the route that handled the request (``unmatched``: none did)."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


def _end_span(span: trace.Span, scope: Scope, route: str, status: int, rid: str) -> None:
    span.update_name(f"{scope['method']} {route}")
    span.set_attributes(
        {"http.route": route, "http.response.status_code": status, "runyard.request_id": rid}
    )
    if status >= 500:
        span.set_status(Status(StatusCode.ERROR))
    span.end()
