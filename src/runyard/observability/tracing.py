"""``Tracing``: this process's OpenTelemetry tracer provider, exporting over OTLP/HTTP or off.

On when ``RUNYARD_OTLP_ENDPOINT`` (a base URL: ``/v1/traces`` is appended) or the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set; the exporter
reads the other ``OTEL_EXPORTER_OTLP_*`` variables (headers, timeout) itself, which is how
Langfuse's ``Authorization`` header gets in. The provider is this object's own, never the API's
global one, so an embedding application's tracing is left alone. Off, ``tracer`` is None and
nothing of the SDK runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opentelemetry.trace import Tracer

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

__all__ = ["OTEL_ENDPOINT_VARIABLES", "Tracing", "otlp_endpoint"]

OTEL_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")

_TRACES_PATH = "/v1/traces"


def otlp_endpoint(configured: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Where spans are sent: ``configured`` (``RUNYARD_OTLP_ENDPOINT``) with ``/v1/traces``,
    else the standard variable's URL as the exporter reads it; None: tracing is off."""
    if configured:
        return configured.rstrip("/") + _TRACES_PATH
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return None
    traces = env.get(OTEL_ENDPOINT_VARIABLES[0])
    if traces:
        return traces
    base = env.get(OTEL_ENDPOINT_VARIABLES[1])
    return base.rstrip("/") + _TRACES_PATH if base else None


@dataclass
class Tracing:
    """The tracer runyard's spans start from (None: tracing is off), and what records content."""

    provider: TracerProvider | None = None
    content: bool = False
    """Record message and tool contents (``RUNYARD_TRACE_CONTENT``), redacted."""
    endpoint: str | None = None
    """Where the spans go, for the start-up report (None: off, or an exporter given in code)."""

    def __post_init__(self) -> None:
        self.tracer: Tracer | None = (
            self.provider.get_tracer("runyard") if self.provider is not None else None
        )

    @classmethod
    def exporting(
        cls,
        configured: str = "",
        *,
        content: bool = False,
        instance: str = "",
        environ: Mapping[str, str] | None = None,
    ) -> Tracing:
        """OTLP/HTTP export to ``otlp_endpoint(configured)``; off when that is None."""
        endpoint = otlp_endpoint(configured, environ)
        if endpoint is None:
            return cls(content=content)
        # Imported only when on: the exporter pulls in protobuf and requests.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        exporter = OTLPSpanExporter(endpoint=endpoint)
        return cls.with_processor(BatchSpanProcessor(exporter), content, instance, endpoint)

    @classmethod
    def with_processor(
        cls,
        processor: SpanProcessor,
        content: bool = False,
        instance: str = "",
        endpoint: str | None = None,
    ) -> Tracing:
        """Tracing into ``processor`` (tests: a ``SimpleSpanProcessor`` over an in-memory
        exporter)."""
        # The SDK is loaded only when tracing is on: off, ``runyard serve`` never pays for it.
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider

        env = os.environ
        attributes = {"service.name": env.get("OTEL_SERVICE_NAME", "runyard")}
        if instance:
            attributes["service.instance.id"] = instance
        provider = TracerProvider(resource=Resource.create(attributes))
        provider.add_span_processor(processor)
        return cls(provider, content, endpoint)

    def shutdown(self) -> None:
        """Export what is buffered and stop (a no-op when off)."""
        if self.provider is not None:
            self.provider.shutdown()
