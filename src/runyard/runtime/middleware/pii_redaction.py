"""``PiiRedaction``: e-mail addresses, phone numbers, card numbers and IBANs replaced by a label,
in what the model reads and in what the client receives, before either sees them.

- Model input: the text of every message sent to the model (user, assistant, system, reasoning)
  and every string inside tool results.
- Streamed output: text and reasoning deltas pass a filter that holds back the last
  ``hold_chars`` characters, so a match split across deltas (``ali`` + ``ce@example.com``) is
  redacted whole before any of it leaves; what is held is sent when the model's stream ends.
- The answer the loop records (what memory stores and ``generate`` returns) is redacted the
  same way, so the stored message equals what the stream sent. A single match longer than
  ``hold_chars`` is the one case a stream can show its beginning; raise ``hold_chars`` for
  patterns that long.

Nothing else is changed: tool-call arguments reach the tool as the model wrote them, and a
user's own message is stored as the user wrote it (only the model's copy is redacted).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from runyard.errors import ConfigurationError
from runyard.messages import AgentMessage, ReasoningPart, TextPart, ToolResultPart
from runyard.models import ModelTurn
from runyard.redaction import HoldBack, Replacement, substitute
from runyard.runtime.middleware.base import DeltaChannel, DeltaFilter, Middleware, ModelRequest

__all__ = ["BUILTIN_PII_PATTERNS", "PiiRedaction", "Redactor"]

BUILTIN_PII_PATTERNS: dict[str, str] = {
    "email": r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",
    "iban": r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b",
    "card": r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])",
    "phone": r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}[ .-]?\d{2,4}[ .-]?\d{3,5}(?!\w)",
}
"""The built-in kinds, tried in this order; where two match at one place the longer wins."""

DEFAULT_HOLD_CHARS = 64


class Redactor:
    """Finds PII in text and replaces each match by ``[KIND]`` (``[EMAIL]``, ``[PHONE]``, …)."""

    def __init__(self, patterns: Mapping[str, str]) -> None:
        compiled: list[tuple[str, re.Pattern[str]]] = []
        for kind, pattern in patterns.items():
            try:
                compiled.append((kind, re.compile(pattern)))
            except re.error as exc:
                raise ConfigurationError(f"pii pattern {kind!r} does not compile: {exc}") from exc
        self._patterns = compiled

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping matches as ``(start, end, kind)``: leftmost first, longest on a tie."""
        found = sorted(
            ((m.start(), -m.end(), kind) for kind, p in self._patterns for m in p.finditer(text)),
        )
        spans: list[tuple[int, int, str]] = []
        for start, negative_end, kind in found:
            end = -negative_end
            if end > start and (not spans or start >= spans[-1][1]):
                spans.append((start, end, kind))
        return spans

    def redact(self, text: str) -> str:
        return substitute(text, self.replacements(text), 0, len(text))

    def replacements(self, text: str) -> list[Replacement]:
        """``spans`` with the label each is replaced by."""
        return [(start, end, f"[{kind.upper()}]") for start, end, kind in self.spans(text)]

    def redact_value(self, value: Any) -> Any:
        """Every string inside a JSON-like value redacted (tool results)."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_value(item) for item in value]
        if isinstance(value, dict):
            return {key: self.redact_value(item) for key, item in value.items()}
        return value


class PiiRedaction(Middleware):
    """Redacts PII in model input, in streamed deltas and in the recorded answer.

    ``kinds`` picks built-in patterns (all by default: email, iban, card, phone); ``patterns``
    adds ``{kind: regex}`` of your own (``{"employee_id": "EMP-\\d{6}"}`` → ``[EMPLOYEE_ID]``).
    """

    def __init__(
        self,
        *,
        kinds: Iterable[str] | None = None,
        patterns: Mapping[str, str] | None = None,
        hold_chars: int = DEFAULT_HOLD_CHARS,
    ) -> None:
        chosen = list(BUILTIN_PII_PATTERNS) if kinds is None else list(kinds)
        unknown = [kind for kind in chosen if kind not in BUILTIN_PII_PATTERNS]
        if unknown:
            raise ConfigurationError(
                f"unknown pii kind(s) {', '.join(map(repr, unknown))}: "
                f"expected some of {', '.join(BUILTIN_PII_PATTERNS)}"
            )
        if hold_chars < 1:
            raise ConfigurationError("hold_chars must be at least 1")
        self.redactor = Redactor(
            {**{kind: BUILTIN_PII_PATTERNS[kind] for kind in chosen}, **(patterns or {})}
        )
        self.hold_chars = hold_chars

    async def before_model(self, request: ModelRequest) -> ModelRequest:
        # The instructions too: working memory and observations are written into them, and
        # those hold what users said.
        return replace(
            request,
            messages=[self._message(m) for m in request.messages],
            instructions=self.redactor.redact(request.instructions),
        )

    async def after_model(self, turn: ModelTurn) -> ModelTurn:
        return replace(turn, message=self._message(turn.message))

    def delta_filter(self, channel: DeltaChannel) -> DeltaFilter:
        return HoldBack(self.redactor.replacements, self.hold_chars)

    def _message(self, message: AgentMessage) -> AgentMessage:
        parts = [self._part(part) for part in message.parts]
        if all(new is old for new, old in zip(parts, message.parts, strict=True)):
            return message
        return message.model_copy(update={"parts": parts})

    def _part(self, part: Any) -> Any:
        if isinstance(part, TextPart | ReasoningPart):
            redacted = self.redactor.redact(part.text)
            return part if redacted == part.text else part.model_copy(update={"text": redacted})
        if isinstance(part, ToolResultPart):
            result = self.redactor.redact_value(part.result)
            return part if result == part.result else part.model_copy(update={"result": result})
        return part
