"""``ObservedCalls``: the server interceptor that gives every runyard gRPC call a request id and,
when tracing is on, a server span — the gRPC twin of ``runyard.http.observed_requests``.

- ``x-request-id`` metadata: a valid one is kept, anything else replaced by a new id, bound to
  the call's log lines and to those of the run it starts (whose task inherits the context).
- A server span ``runyard.v1.InferenceService/Invoke`` (the RPC's full name), continuing a W3C
  ``traceparent`` the client sent; it is the current span while the handler runs, so a run the
  call starts is its child, as under an HTTP request.

Health and reflection calls are left alone: they say nothing about runs.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import grpc
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from runyard.observability import REQUEST_ID_HEADER, Tracing, bind_log_context, request_id

__all__ = ["ObservedCalls"]

_OBSERVED_PREFIX = "/runyard."
_PROPAGATOR = TraceContextTextMapPropagator()


class ObservedCalls(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc.aio is untyped
    """Request ids and server spans around the handlers of runyard's own services."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(_OBSERVED_PREFIX):
            return handler
        metadata = {
            k.lower(): v
            for k, v in handler_call_details.invocation_metadata or ()
            if isinstance(v, str)
        }
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, method, metadata),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(handler.unary_stream, method, metadata),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler  # runyard has no client-streaming methods

    def _unary(
        self, inner: Callable[..., Any], method: str, metadata: Mapping[str, str]
    ) -> Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]:
        async def observed(request: Any, context: grpc.aio.ServicerContext) -> Any:
            with self._observed(method, metadata, context):
                return await inner(request, context)

        return observed

    def _streaming(
        self, inner: Callable[..., Any], method: str, metadata: Mapping[str, str]
    ) -> Callable[[Any, grpc.aio.ServicerContext], Any]:
        if not inspect.isasyncgenfunction(inner):
            # A handler that writes with ``context.write`` and returns, like ``Stream``.
            return self._unary(inner, method, metadata)

        async def observed(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            with self._observed(method, metadata, context):
                async for item in inner(request, context):
                    yield item

        return observed

    @contextmanager
    def _observed(
        self, method: str, metadata: Mapping[str, str], context: grpc.aio.ServicerContext
    ) -> Iterator[None]:
        rid = request_id(metadata.get(REQUEST_ID_HEADER.lower()))
        span = self._start_span(method, metadata, rid)
        token = otel_context.attach(trace.set_span_in_context(span)) if span else None
        try:
            with bind_log_context(request_id=rid):
                yield
        finally:
            if token is not None:
                otel_context.detach(token)
            if span is not None:
                _end_span(span, context)

    def _start_span(self, method: str, metadata: Mapping[str, str], rid: str) -> trace.Span | None:
        tracer = self.tracing.tracer
        if tracer is None:
            return None
        service, _, name = method.removeprefix("/").partition("/")
        return tracer.start_span(
            f"{service}/{name}",
            context=_PROPAGATOR.extract(dict(metadata)),
            kind=SpanKind.SERVER,
            attributes={
                "rpc.system": "grpc",
                "rpc.service": service,
                "rpc.method": name,
                "runyard.request_id": rid,
            },
        )


def _end_span(span: trace.Span, context: grpc.aio.ServicerContext) -> None:
    code = context.code()
    status = code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK
    span.set_attribute("rpc.grpc.status_code", status.value[0])
    if status not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED):
        span.set_status(Status(StatusCode.ERROR))
    span.end()
