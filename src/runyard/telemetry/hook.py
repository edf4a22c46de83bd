"""The telemetry hook: where a run reports its spans — the run, each model call, each tool call.

runyard only calls it; an implementation (OpenTelemetry, Langfuse) decides what a span becomes.
A span is itself a ``Telemetry``: children start from it, and a tool call hands its span to a
sub-agent's run (``ToolContext.telemetry``) so the sub-agent's spans nest under that call. This
module imports nothing of runyard, so every layer can carry the hook (``ToolContext`` at layer 1
as well as the runtime above it). An implementation must not raise: its calls sit on the run's
path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol

__all__ = ["NO_TELEMETRY", "SpanKind", "Telemetry", "TelemetrySpan"]

SpanKind = Literal["run", "model", "tool"]
"""``run``: one run segment (a fresh run or a resume); ``model``: one model call; ``tool``: one
tool call."""


class Telemetry(Protocol):
    """Starts spans; the agent's (``Agent(telemetry=)``), a run's (``telemetry=``), or a span."""

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        """A span that has started now; it lasts until its ``end``."""
        ...


class TelemetrySpan(Telemetry, Protocol):
    """One started span; spans started from it are its children."""

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        """End the span, with what went wrong (if anything) and what became known meanwhile."""
        ...


class _NoTelemetry:
    """Telemetry that records nothing: the default, so the runtime never checks for None."""

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        return self

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        return None


NO_TELEMETRY: TelemetrySpan = _NoTelemetry()
