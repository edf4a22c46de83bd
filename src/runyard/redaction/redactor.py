"""``SecretRedactor``: the one object that finds secrets in text and data and blanks them.

It knows two kinds of secret: **values** (the exact strings of keys, tokens and passwords this
process was given, ``known_secrets``) and **shapes** (regular expressions: the built-in key and
credential forms, plus the operator's ``RUNYARD_REDACT_PATTERNS``). Every match becomes
``[REDACTED]``; a pattern with a group named ``secret`` has only that group replaced, so
``Bearer ryk_…`` reads ``Bearer [REDACTED]`` and a URL keeps its host. Redacting is idempotent:
redacted text redacts to itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["BUILTIN_SECRET_PATTERNS", "MIN_SECRET_LENGTH", "REDACTED", "SecretRedactor"]

REDACTED = "[REDACTED]"

MIN_SECRET_LENGTH = 6
"""Known values shorter than this are ignored: blanking every ``admin`` or ``1234`` in every log
line would hide more than it protects (such a value is no secret anyway)."""

BUILTIN_SECRET_PATTERNS: dict[str, str] = {
    "runyard_api_key": r"ryk_[0-9A-Za-z]{55}",
    "authorization_header": (
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?"
        r"(?!(?:bearer|basic|token)\b)(?P<secret>[^\s\"',;\[][^\s\"',;]*)"
    ),
    "bearer": r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
    "url_userinfo": r"[A-Za-z][A-Za-z0-9+.-]*://(?P<secret>[^\s/?#@\"'<>]+)@",
    "provider_key": r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{20,}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{35}",
    "groq_key": r"\bgsk_[A-Za-z0-9]{20,}",
    "xai_key": r"\bxai-[A-Za-z0-9]{20,}",
    "huggingface_token": r"\bhf_[A-Za-z0-9]{30,}",
    "github_token": r"\bgh[pousr]_[A-Za-z0-9]{36,}",
    "aws_access_key_id": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
}
"""The credential shapes always redacted, whatever the process knows (docs/security.md)."""

_T = TypeVar("_T")


class SecretRedactor:
    """Replaces known secret values and secret-shaped text by ``[REDACTED]``.

    ``secrets`` are exact values (shorter than ``MIN_SECRET_LENGTH`` ignored); ``patterns`` are
    regular expressions added to ``BUILTIN_SECRET_PATTERNS`` (``builtin=False`` drops those).
    A pattern that does not compile raises ``re.error``. More values can be learnt later
    (``learn``), or followed (``follow``): the credentials of the tools a catalog defines, which
    a hot reload may change.
    """

    def __init__(
        self,
        secrets: Iterable[str] = (),
        patterns: Iterable[str] = (),
        *,
        builtin: bool = True,
    ) -> None:
        shapes = [*(BUILTIN_SECRET_PATTERNS.values() if builtin else ()), *patterns]
        self._shapes = [re.compile(p) for p in shapes]
        self._values: set[str] = set()
        self._by_value: re.Pattern[str] | None = None
        self._followed: list[_Followed] = []
        self.learn(secrets)

    def follow(
        self, current: Callable[[], object], secrets_of: Callable[[Any], Iterable[str]]
    ) -> None:
        """Learn ``secrets_of(current())`` now, and again whenever ``current()`` returns another
        object (checked by identity on each redaction: cheap). Values once learnt stay secret."""
        self._followed.append(_Followed(current, secrets_of))
        self._refresh()

    def _refresh(self) -> None:
        for followed in self._followed:
            now = followed.current()
            if now is not followed.seen:
                followed.seen = now
                self.learn(followed.secrets_of(now))

    def learn(self, secrets: Iterable[str]) -> None:
        """Redact these exact values too from now on."""
        fresh = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH and s != REDACTED}
        if fresh <= self._values:
            return
        self._values |= fresh
        # Longest first, so a secret that contains another is blanked whole.
        ordered = sorted(self._values, key=len, reverse=True)
        self._by_value = re.compile("|".join(re.escape(v) for v in ordered))

    def redact(self, text: str) -> str:
        """``text`` with every secret in it replaced; the same object when there was none."""
        self._refresh()
        out = text
        if self._by_value is not None:
            out = self._by_value.sub(REDACTED, out)
        for shape in self._shapes:
            out = shape.sub(_replacement, out)
        return text if out == text else out

    def redact_data(self, value: _T) -> _T:
        """``value`` (JSON-like: dicts, lists, tuples, strings, scalars) with every string in it
        redacted, keys included; the same object when nothing changed."""
        return _redact_value(self, value)  # type: ignore[no-any-return]


class _Followed:
    """A source of secret values and the object it last gave."""

    def __init__(
        self, current: Callable[[], object], secrets_of: Callable[[Any], Iterable[str]]
    ) -> None:
        self.current = current
        self.secrets_of = secrets_of
        self.seen: object = _NOTHING


_NOTHING = object()


def _replacement(match: re.Match[str]) -> str:
    if "secret" not in match.re.groupindex or match.group("secret") is None:
        return REDACTED
    start, end = match.span("secret")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + REDACTED + whole[end - offset :]


def _redact_value(redactor: SecretRedactor, value: Any) -> Any:
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, Mapping):
        items = [(_redact_value(redactor, k), _redact_value(redactor, v)) for k, v in value.items()]
        changed = any(
            k is not k0 or v is not v0
            for (k, v), (k0, v0) in zip(items, value.items(), strict=True)
        )
        return dict(items) if changed else value
    if isinstance(value, list | tuple):
        redacted = [_redact_value(redactor, v) for v in value]
        if all(a is b for a, b in zip(redacted, value, strict=True)):
            return value
        return redacted if isinstance(value, list) else tuple(redacted)
    return value
