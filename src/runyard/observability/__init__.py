"""Observability: Prometheus metrics, OpenTelemetry traces and structured logs (layer 0).

Imports nothing of runyard: the layers above call it. ``Metrics`` is one process's instruments
(``GET /metrics`` renders them); ``Tracing`` its tracer provider (OTLP export or off);
``configure_logging`` the JSON or text log
output, with the request, tenant, agent, thread, run and trace ids of ``log_context``.
The implementation of runyard's telemetry hook that turns a run's spans into GenAI-convention
traces, metrics and log lines over these parts is ``runyard.telemetry.observed``. See
docs/observability.md.
"""

from runyard.observability.log_context import LOG_FIELDS, LogContextFilter, bind_log_context
from runyard.observability.log_format import (
    JsonFormatter,
    LogFormat,
    configure_logging,
    resolve_format,
)
from runyard.observability.metrics import CONTENT_TYPE, RUN_LABELS, Metrics
from runyard.observability.request_id import REQUEST_ID_HEADER, request_id
from runyard.observability.tracing import OTEL_ENDPOINT_VARIABLES, Tracing, otlp_endpoint

__all__ = [
    "CONTENT_TYPE",
    "LOG_FIELDS",
    "OTEL_ENDPOINT_VARIABLES",
    "REQUEST_ID_HEADER",
    "RUN_LABELS",
    "JsonFormatter",
    "LogContextFilter",
    "LogFormat",
    "Metrics",
    "Tracing",
    "bind_log_context",
    "configure_logging",
    "otlp_endpoint",
    "request_id",
    "resolve_format",
]
