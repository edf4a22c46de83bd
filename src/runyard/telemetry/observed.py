"""``ObservedTelemetry``: the server's implementation of runyard's telemetry hook.

One path for everything a run reports (``runyard.telemetry``: a run span, its model calls and
tool calls): each span becomes an OpenTelemetry span named by the GenAI semantic conventions
(``invoke_agent {agent}``, ``chat {model}``, ``execute_tool {tool}``) when tracing is on, and,
on or off, the run's metrics, its log context and a log line per tool call. It satisfies the
``Telemetry`` protocol structurally and builds on ``runyard.observability`` (metrics, tracing,
log context); the server wraps it in
``RedactingTelemetry``, so every name, attribute and error it sees is already redacted.

A run span started from nothing takes the current OpenTelemetry context as its parent (the HTTP
request's span, which the run's task inherits); a run started from a tool span (a sub-agent,
``ToolContext.telemetry``) nests under that call.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from runyard.observability import log_context
from runyard.observability.metrics import Metrics
from runyard.observability.tracing import Tracing

__all__ = ["ObservedTelemetry", "RunLabels"]

tool_log = logging.getLogger("runyard.tools")
log = logging.getLogger(__name__)

_OPERATIONS = {"run": "invoke_agent", "model": "chat", "tool": "execute_tool"}

_CONTENTS = {
    "input_messages": "gen_ai.input.messages",
    "system_instructions": "gen_ai.system_instructions",
    "output_messages": "gen_ai.output.messages",
}
"""A model span's contents (``runyard.runtime.span_contents``) and the attributes they go to."""


@dataclass(frozen=True, slots=True)
class RunLabels:
    """Who a run is for: the metric labels (bounded) and the thread (a span attribute only)."""

    tenant: str = "default"
    agent: str = ""
    """The agent id (empty: the run span's own name)."""
    version: str = ""
    thread_id: str | None = None
    entry: str = ""
    """How the run came in (``http``, ``grpc``, ``temporal``, a face's name; empty: unknown,
    or an agent run from code)."""

    @property
    def agent_instance_id(self) -> str:
        return f"{self.agent}@{self.version}" if self.version else self.agent


_MAX_SUSPENDED = 10_000
"""Suspended runs remembered for the gauge; past it the oldest is forgotten (and uncounted), so
runs resumed elsewhere or expired cannot grow the process without bound."""


@dataclass
class _Shared:
    metrics: Metrics
    tracing: Tracing
    suspended: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    """Runs this process suspended and has not resumed since, with their labels."""

    def suspend(self, run_id: str, labels: tuple[str, str, str]) -> None:
        self.suspended[run_id] = labels
        self.metrics.runs_suspended.labels(*labels).inc()
        if len(self.suspended) > _MAX_SUSPENDED:
            self.resume(next(iter(self.suspended)))

    def resume(self, run_id: str) -> None:
        labels = self.suspended.pop(run_id, None)
        if labels is not None:
            self.metrics.runs_suspended.labels(*labels).dec()


class ObservedTelemetry:
    """Spans, metrics and logs of runs; ``bound`` gives the telemetry of one run's labels."""

    def __init__(
        self, metrics: Metrics, tracing: Tracing | None = None, labels: RunLabels | None = None
    ) -> None:
        self._shared = _Shared(metrics, tracing or Tracing())
        self.labels = labels or RunLabels()

    def bound(self, **labels: Any) -> ObservedTelemetry:
        """The same telemetry for runs with these ``RunLabels`` fields."""
        twin = ObservedTelemetry.__new__(ObservedTelemetry)
        twin._shared, twin.labels = self._shared, replace(self.labels, **labels)
        return twin

    def records_content(self) -> bool:
        """True while contents are recorded: traces with content on, or tool logs at debug."""
        return self._shared.tracing.content or tool_log.isEnabledFor(logging.DEBUG)

    def start_span(self, kind: str, name: str, attributes: Mapping[str, object]) -> _Span:
        labels = (
            self.labels if self.labels.agent or kind != "run" else replace(self.labels, agent=name)
        )
        return _Span(self._shared, labels, kind, name, attributes, parent=None)


class _Span:
    """One started span: an OpenTelemetry span when tracing is on, and what its end records."""

    def __init__(
        self,
        shared: _Shared,
        labels: RunLabels,
        kind: str,
        name: str,
        attributes: Mapping[str, object],
        parent: _Span | None,
    ) -> None:
        self._shared, self.labels, self.kind, self.name = shared, labels, kind, name
        self._parent = parent
        # Kept as given, not copied: a redacting wrapper redacts only the values read.
        self._attributes = attributes
        self._started = time.perf_counter()
        self.otel = self._start_otel(parent)
        self._log_token = log_context.bind(self._log_fields()) if kind == "run" else None
        if self._is_root_run:
            shared.metrics.runs_active.labels(*self._run_labels).inc()
            shared.resume(str(attributes.get("run_id")))
            if attributes.get("segment") == "start":
                entry = labels.entry or "unknown"
                shared.metrics.runs_started.labels(*self._run_labels, entry).inc()

    @property
    def _is_root_run(self) -> bool:
        return self.kind == "run" and self._parent is None

    @property
    def _run_labels(self) -> tuple[str, str, str]:
        return self.labels.tenant, self.labels.agent, self.labels.version

    # -- the Telemetry protocol ---------------------------------------------------------------

    def start_span(self, kind: str, name: str, attributes: Mapping[str, object]) -> _Span:
        return _Span(self._shared, self.labels, kind, name, attributes, parent=self)

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        ended: Mapping[str, object] = attributes or {}
        seconds = time.perf_counter() - self._started
        try:
            self._record(ended, error, seconds)
        except Exception:  # the hook must not raise: a lost sample never fails the run
            log.exception("recording the %s span %s failed", self.kind, self.name)
        finally:
            if self._log_token is not None:
                log_context.unbind(self._log_token)
            if self.otel is not None:
                self._end_otel(self.otel, ended, error)

    # -- metrics and logs ---------------------------------------------------------------------

    def _record(
        self, ended: Mapping[str, object], error: BaseException | None, seconds: float
    ) -> None:
        if self.kind == "run":
            self._record_run(ended, error, seconds)
        elif self.kind == "model":
            self._record_model(ended, error, seconds)
        elif self.kind == "tool":
            self._record_tool(ended, error, seconds)

    def _record_run(
        self, ended: Mapping[str, object], error: BaseException | None, seconds: float
    ) -> None:
        if not self._is_root_run:  # a sub-agent's run is part of its caller's
            return
        metrics, labels = self._shared.metrics, self._run_labels
        status = str(ended.get("status") or ("failed" if error else "success"))
        metrics.agent_latency.labels(*labels, status).observe(seconds)
        metrics.runs_active.labels(*labels).dec()
        if status == "suspended":
            self._shared.suspend(str(self._attributes.get("run_id")), labels)

    def _record_model(
        self, ended: Mapping[str, object], error: BaseException | None, seconds: float
    ) -> None:
        # Usage, cost and time go to the model that answered, a fallback one included.
        metrics, labels, model = self._shared.metrics, self._run_labels, _answered_by(self, ended)
        self._record_fallbacks(_fallbacks(ended))
        outcome = "error" if error is not None else "success"
        metrics.model_latency.labels(*labels, model, outcome).observe(seconds)
        for direction in ("input", "output"):
            tokens = ended.get(f"{direction}_tokens")
            if isinstance(tokens, int) and tokens > 0:
                metrics.model_tokens.labels(*labels, model, direction).inc(tokens)
        cost = ended.get("cost")
        if isinstance(cost, int | float) and cost > 0:
            metrics.model_cost.labels(*labels, model).inc(cost)
        first = ended.get("time_to_first_token_s")
        if isinstance(first, int | float):
            metrics.model_first_token.labels(*labels, model).observe(first)

    def _record_fallbacks(self, fallbacks: list[Mapping[str, object]]) -> None:
        counter, labels = self._shared.metrics.model_fallbacks, self._run_labels
        for switch in fallbacks:
            failed, model, reason = (str(switch.get(k)) for k in ("failed", "model", "reason"))
            counter.labels(*labels, failed, model, reason).inc()

    def _record_tool(
        self, ended: Mapping[str, object], error: BaseException | None, seconds: float
    ) -> None:
        metrics, labels = self._shared.metrics, self._run_labels
        tool = self.name if ended.get("tool_known", True) else "(unknown)"
        outcome = "cancelled" if error is not None else str(ended.get("outcome", "error"))
        metrics.tool_invocations.labels(*labels, tool, outcome).inc()
        metrics.tool_duration.labels(*labels, tool).observe(seconds)
        fields = {
            "tool": self.name,
            "outcome": outcome,
            "duration_s": round(seconds, 6),
            "tool_call_id": self._attributes.get("tool_call_id"),
        }
        tool_log.info("tool %s: %s in %.3fs", self.name, outcome, seconds, extra=fields)
        if tool_log.isEnabledFor(logging.DEBUG):
            contents = {
                "arguments": self._attributes.get("arguments"),
                "result": ended.get("result", ended.get("error")),
            }
            tool_log.debug("tool %s: contents", self.name, extra={**fields, **contents})

    def _log_fields(self) -> dict[str, str | None]:
        context = self.otel.get_span_context() if self.otel is not None else None
        return {
            "tenant": self.labels.tenant,
            "agent": self.labels.agent,
            # The agent and its version (``agent@version``): which spec a line came from.
            "agent_instance_id": self.labels.agent_instance_id or None,
            "thread_id": self.labels.thread_id,
            "run_id": _text(self._attributes.get("run_id")),
            "trace_id": format(context.trace_id, "032x") if context is not None else None,
        }

    # -- OpenTelemetry ------------------------------------------------------------------------

    def _start_otel(self, parent: _Span | None) -> Span | None:
        tracer = self._shared.tracing.tracer
        if tracer is None:
            return None
        context = trace.set_span_in_context(parent.otel) if parent and parent.otel else None
        operation = _OPERATIONS.get(self.kind, self.kind)
        subject = _model_name(self.name) if self.kind == "model" else self.name
        return tracer.start_span(
            f"{operation} {subject}",
            context=context,
            kind=SpanKind.CLIENT if self.kind == "model" else SpanKind.INTERNAL,
            attributes=self._otel_start_attributes(operation),
        )

    def _otel_start_attributes(self, operation: str) -> dict[str, Any]:
        given, labels = self._attributes, self.labels
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "runyard.tenant": labels.tenant,
            "runyard.agent_instance_id": labels.agent_instance_id,
            "agent_instance_id": labels.agent_instance_id,
        }
        if labels.thread_id is not None:
            attributes["runyard.thread_id"] = labels.thread_id
            attributes["gen_ai.conversation.id"] = labels.thread_id
        if "run_id" in given:
            attributes["runyard.run_id"] = _text(given["run_id"])
        if self.kind == "run":
            attributes["gen_ai.agent.name"] = self.name
            attributes["gen_ai.agent.id"] = labels.agent_instance_id
            attributes["gen_ai.request.model"] = _model_name(str(given.get("model", "")))
            attributes["runyard.segment"] = _text(given.get("segment"))
            attributes["runyard.entry"] = labels.entry or None
        elif self.kind == "model":
            attributes["gen_ai.request.model"] = _model_name(self.name)
            attributes["gen_ai.provider.name"] = _provider(self.name)
            attributes["runyard.iteration"] = _text(given.get("iteration"))
        elif self.kind == "tool":
            attributes["gen_ai.tool.name"] = self.name
            attributes["gen_ai.tool.call.id"] = _text(given.get("tool_call_id"))
            if self._shared.tracing.content and "arguments" in given:
                attributes["gen_ai.tool.call.arguments"] = _json(given["arguments"])
        return {k: v for k, v in attributes.items() if v is not None}

    def _end_otel(
        self, span: Span, ended: Mapping[str, object], error: BaseException | None
    ) -> None:
        span.set_attributes(self._otel_end_attributes(ended))
        for switch in _fallbacks(ended):
            span.add_event("runyard.model.fallback", _fallback_event(switch))
        if error is not None:
            span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        elif self.kind == "tool" and ended.get("outcome") == "error":
            span.set_status(Status(StatusCode.ERROR, _text(ended.get("error"))))
        span.end()

    def _otel_end_attributes(self, ended: Mapping[str, object]) -> dict[str, Any]:
        attributes: dict[str, Any] = {}
        if "input_tokens" in ended:
            attributes["gen_ai.usage.input_tokens"] = ended["input_tokens"]
            attributes["gen_ai.usage.output_tokens"] = ended.get("output_tokens")
        if ended.get("finish_reason") is not None:
            attributes["gen_ai.response.finish_reasons"] = [str(ended["finish_reason"])]
        if ended.get("cost") is not None:
            attributes["runyard.cost_usd"] = ended["cost"]
        if "model" in ended:
            attributes["gen_ai.response.model"] = _model_name(str(ended["model"]))
            attributes["runyard.model.answered"] = _text(ended["model"])
        if "fallbacks" in ended:
            attributes["runyard.model.fallbacks"] = [
                str(f.get("failed")) for f in _fallbacks(ended)
            ]
        if self.kind == "run":
            attributes["runyard.status"] = _text(ended.get("status"))
        if self.kind == "tool":
            attributes["runyard.tool.outcome"] = _text(ended.get("outcome"))
        if self._shared.tracing.content:
            attributes.update(_content_attributes(ended))
        return {k: v for k, v in attributes.items() if v is not None}


def _content_attributes(ended: Mapping[str, object]) -> dict[str, Any]:
    """What a span's end says of contents (recorded only with ``RUNYARD_TRACE_CONTENT``)."""
    attributes: dict[str, Any] = {}
    for key, name in _CONTENTS.items():
        if value := ended.get(key):
            attributes[name] = _json(value)
    if "output_messages" not in ended and "output_text" in ended:
        attributes["gen_ai.output.messages"] = _json(
            [{"role": "assistant", "parts": [{"type": "text", "content": ended["output_text"]}]}]
        )
    if "result" in ended:
        attributes["gen_ai.tool.call.result"] = _json(ended["result"])
    return attributes


def _answered_by(span: _Span, ended: Mapping[str, object]) -> str:
    """The label of the model that answered a model span's call (its own name when unknown)."""
    answered = ended.get("model")
    return answered if isinstance(answered, str) and answered else span.name


def _fallbacks(ended: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The switches a model span ended with (``runyard.models.ModelFallback.to_dict``)."""
    given = ended.get("fallbacks")
    if not isinstance(given, list):
        return []
    return [switch for switch in given if isinstance(switch, Mapping)]


def _fallback_event(switch: Mapping[str, object]) -> dict[str, Any]:
    attributes = {
        "runyard.model.failed": _text(switch.get("failed")),
        "runyard.model.fallback": _text(switch.get("model")),
        "error.type": _text(switch.get("reason")),
        "runyard.error": _text(switch.get("error")),
        "http.response.status_code": switch.get("status_code"),
    }
    return {k: v for k, v in attributes.items() if v is not None}


def _provider(label: str) -> str | None:
    provider, colon, _ = label.partition(":")
    return provider if colon else None


def _model_name(label: str) -> str:
    return label.partition(":")[2] or label


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _json(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
