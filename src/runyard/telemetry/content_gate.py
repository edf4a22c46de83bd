"""``ContentGate``: drops message and tool contents from span attributes nobody will record.

The runtime always offers a span's contents (``arguments``, ``result``, a model call's
``input_messages``, ``system_instructions`` and ``output_messages``), and
redacting them is the largest cost a run's telemetry has. Placed outermost (before the
redactor), the gate lets them through only while something records them — traces with
``RUNYARD_TRACE_CONTENT``, or tool logs at debug level — so a server that records none pays
nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

__all__ = ["CONTENT_KEYS", "ContentGate"]

CONTENT_KEYS = frozenset(
    {
        "arguments",
        "result",
        "output_text",
        "input_messages",
        "system_instructions",
        "output_messages",
    }
)
"""The span attributes that are contents, not metadata."""


class _Span(Protocol):
    def start_span(self, kind: Any, name: str, attributes: Mapping[str, object]) -> Any: ...

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None: ...


class ContentGate:
    """Starts ``inner``'s spans, without contents while ``wanted()`` is false."""

    def __init__(self, inner: Any, wanted: Callable[[], bool]) -> None:
        self._inner = inner
        self._wanted = wanted

    def start_span(self, kind: Any, name: str, attributes: Mapping[str, object]) -> _GatedSpan:
        span: _Span = self._inner.start_span(kind, name, self._gated(attributes))
        return _GatedSpan(span, self._wanted)

    def _gated(self, attributes: Mapping[str, object]) -> Mapping[str, object]:
        if self._wanted() or CONTENT_KEYS.isdisjoint(attributes):
            return attributes
        # Read by key: a value left out is never read (``LazyAttributes`` would build it).
        return {k: attributes[k] for k in attributes if k not in CONTENT_KEYS}


class _GatedSpan(ContentGate):
    def __init__(self, inner: _Span, wanted: Callable[[], bool]) -> None:
        super().__init__(inner, wanted)
        self._span = inner

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        gated = None if attributes is None else self._gated(attributes)
        self._span.end(error=error, attributes=gated)
