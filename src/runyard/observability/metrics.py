"""``Metrics``: this process's Prometheus instruments, in a registry of their own.

Each ``Metrics`` owns a ``CollectorRegistry`` (never prometheus-client's global one), so two apps
in one process, or two tests, never count into each other; ``GET /metrics`` renders it. Label
values are bounded by construction: tenants, agent ids and versions, tool and model names come
from the catalog, outcomes and directions from fixed sets. Thread, run and request ids are never
labels (they are span attributes and log fields).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE", "RUN_LABELS", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The media type of ``Metrics.render`` (the Prometheus text format)."""

RUN_LABELS = ("tenant", "agent", "version")
"""The labels of everything a run does."""

_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
_FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class Metrics:
    """Every instrument runyard records; the layers above observe through its attributes."""

    def __init__(self, namespace: str = "runyard") -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        made = _Instruments(self.registry, namespace)
        counter, gauge, histogram = made.counter, made.gauge, made.histogram
        self.agent_latency = histogram(
            "agent_latency_seconds",
            "Wall time of a run segment (a fresh run or a resume), by how it ended",
            [*RUN_LABELS, "status"],
            _LATENCY_BUCKETS,
        )
        self.runs_started = counter(
            "runs_started",
            "Runs started, by how they came in (http, grpc, temporal, openai, agui, ai-sdk, mcp; "
            "unknown for a run whose thread predates entries)",
            [*RUN_LABELS, "entry"],
        )
        self.tool_invocations = counter(
            "tool_invocations",
            "Tool calls, by tool and outcome (success, error, denied, suspended, cancelled)",
            [*RUN_LABELS, "tool", "outcome"],
        )
        self.tool_duration = histogram(
            "tool_duration_seconds",
            "Wall time of a tool call",
            [*RUN_LABELS, "tool"],
            _FAST_BUCKETS,
        )
        self.routing_decisions = counter(
            "routing_decisions",
            "Agents chosen for new runs, by the rule that chose them (default, explicit)",
            ["tenant", "agent", "rule"],
        )
        self.routing_mismatch = counter(
            "routing_mismatch",
            "Requests whose agent the rules would not have chosen: explicit_differs (the "
            "request named another agent than the rules give) or no_rule (none matched)",
            ["tenant", "agent", "reason"],
        )
        self.registry_nodes = gauge(
            "registry_nodes",
            "Definitions the served catalog holds, by kind (agent, tool, routing)",
            ["kind"],
        )
        self.agents_loaded = gauge(
            "agents_loaded",
            "Compiled agent versions this process holds, by whether the catalog serves them "
            "(served=false: kept for the runs still on them, at most 8)",
            ["served"],
        )
        self.registry_reload_duration = histogram(
            "registry_reload_duration_seconds",
            "Wall time of a catalog reload, by outcome (changed, unchanged, failed)",
            ["outcome"],
            _FAST_BUCKETS,
        )
        self.model_tokens = counter(
            "model_tokens",
            "Tokens of model calls, by model and direction (input, output)",
            [*RUN_LABELS, "model", "direction"],
        )
        self.model_cost = counter(
            "model_cost_usd",
            "Cost of model calls in US dollars (calls without a known price add nothing)",
            [*RUN_LABELS, "model"],
        )
        self.model_latency = histogram(
            "model_call_duration_seconds",
            "Wall time of a model call, by outcome (success, error)",
            [*RUN_LABELS, "model", "outcome"],
            _LATENCY_BUCKETS,
        )
        self.model_fallbacks = counter(
            "model_fallbacks",
            "Model calls moved on to the next model of the agent's list, by the model that "
            "failed, the one asked next and why (rate_limit, server_error, client_error, "
            "timeout, unreachable)",
            [*RUN_LABELS, "model", "fallback", "reason"],
        )
        self.model_first_token = histogram(
            "model_time_to_first_token_seconds",
            "Time from a streamed model call's start to its first delta",
            [*RUN_LABELS, "model"],
            _FAST_BUCKETS,
        )
        self.runs_active = gauge(
            "runs_active",
            "Run segments executing in this process",
            list(RUN_LABELS),
        )
        self.runs_suspended = gauge(
            "runs_suspended",
            "Runs this process suspended that no segment of this process has resumed yet",
            list(RUN_LABELS),
        )
        self.streams_open = gauge(
            "streams_open",
            "Event streams open to clients, by protocol (sse, grpc)",
            ["protocol"],
        )
        self.event_log_write_lag = histogram(
            "event_log_write_lag_seconds",
            "Time from an event's emission to its batch being stored and visible",
            (),
            _FAST_BUCKETS,
        )
        self.http_request_duration = histogram(
            "http_request_duration_seconds",
            "HTTP requests, by method, route template and status (streams: until they end)",
            ["method", "route", "status"],
            _FAST_BUCKETS,
        )

    @contextmanager
    def stream_open(self, protocol: str) -> Iterator[None]:
        """Count one open stream of ``protocol`` (``sse``, ``websocket``, ``grpc``) while the block
        runs."""
        gauge = self.streams_open.labels(protocol)
        gauge.inc()
        try:
            yield
        finally:
            gauge.dec()

    def render(self) -> bytes:
        """Every instrument in the Prometheus text format (``CONTENT_TYPE``)."""
        return generate_latest(self.registry)


class _Instruments:
    """Makes instruments in one registry under one namespace."""

    def __init__(self, registry: CollectorRegistry, namespace: str) -> None:
        self._namespace, self._registry = namespace, registry

    def counter(self, name: str, doc: str, labels: Sequence[str]) -> Counter:
        return Counter(name, doc, labels, namespace=self._namespace, registry=self._registry)

    def gauge(self, name: str, doc: str, labels: Sequence[str]) -> Gauge:
        return Gauge(name, doc, labels, namespace=self._namespace, registry=self._registry)

    def histogram(
        self, name: str, doc: str, labels: Sequence[str], buckets: Sequence[float]
    ) -> Histogram:
        return Histogram(
            name, doc, labels, self._namespace, registry=self._registry, buckets=buckets
        )
