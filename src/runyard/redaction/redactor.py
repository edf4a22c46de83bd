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
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any, TypeVar

from runyard.redaction.hold_back import HoldBack, Replacement

__all__ = [
    "BUILTIN_SECRET_PATTERNS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SHAPE_HOLD_CHARS",
    "SecretRedactor",
]

REDACTED = "[REDACTED]"

MIN_SECRET_LENGTH = 6
"""Known values shorter than this are ignored: blanking every ``admin`` or ``1234`` in every log
line would hide more than it protects (such a value is no secret anyway)."""

BUILTIN_SECRET_PATTERNS: dict[str, str] = {
    "runyard_api_key": r"ryk_[0-9A-Za-z]{55}",
    "runyard_stream_ticket": r"ryt_[0-9A-Za-z]{12}_[0-9]{10}_[A-Za-z0-9_-]{22}",
    "authorization_header": (
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?"
        r"(?!(?:bearer|basic|token)\b)(?P<secret>[^\s\"',;\[][^\s\"',;]*)"
    ),
    "bearer": r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
    "url_userinfo": r"(?<=[A-Za-z0-9+.-])://(?P<secret>[^\s/?#@\"'<>]+)@",
    "provider_key": r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{20,}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{35}",
    "groq_key": r"\bgsk_[A-Za-z0-9]{20,}",
    "xai_key": r"\bxai-[A-Za-z0-9]{20,}",
    "huggingface_token": r"\bhf_[A-Za-z0-9]{30,}",
    "github_token": r"\bgh[pousr]_[A-Za-z0-9]{36,}",
    "aws_access_key_id": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
}
"""The credential shapes always redacted, whatever the process knows (docs/security.md)."""

_KEY_TRIGGERS = (
    *("sk-", "rk-", "pk-", "aiza", "gsk_", "xai-", "hf_"),
    *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "akia", "asia"),
)
"""The beginnings of the built-in keys that are blanked from their first character, each at a
word boundary (``\\b`` in its shape)."""
_SHAPE_TRIGGERS = ("ryk_", "ryt_", "authorization", "bearer", "://", *_KEY_TRIGGERS)
"""Every match of a built-in shape holds one of these (in lower case). Most text holds none,
and looking for them (C string search) costs a fraction of running the shapes' scan. The
triggers that are not keys only lead up to the secret they blank, so they may be sent before
it: a stream's later scan still sees them."""
_TRIGGER = re.compile("|".join(map(re.escape, _SHAPE_TRIGGERS)))
"""Any of the triggers in (lower-cased) text: one scan instead of one per trigger."""
_KEY_PREFIXES = frozenset(key[:end] for key in _KEY_TRIGGERS for end in range(1, len(key)))
"""What a stream's last word may be and still grow into a key."""
_RUNYARD_KEY_PREFIXES = ("r", "ry", "ryk", "ryt")
"""What a stream may end with and still grow into a runyard key or stream ticket, which may
begin mid-word."""
_LAST_WORD = re.compile(r"\w*\Z")

SHAPE_HOLD_CHARS = 64
"""How much of a stream ``hold_back`` keeps unsent for the shapes: more than the built-in key
forms need before they match (a runyard key, 59 characters, is the longest)."""

_SHORT = 40
_SHORT_KEPT = 4096
"""``redact`` remembers up to this many strings of at most ``_SHORT`` characters."""
_SECRET_GROUP = re.compile(r"secret\d*")
_GLOBAL_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")

_T = TypeVar("_T")


class SecretRedactor:
    """Replaces known secret values and secret-shaped text by ``[REDACTED]``.

    ``secrets`` are exact values (shorter than ``MIN_SECRET_LENGTH`` ignored); ``patterns`` are
    regular expressions added to ``BUILTIN_SECRET_PATTERNS`` (``builtin=False`` drops those).
    A pattern that does not compile raises ``re.error``. More values can be learnt later
    (``learn``): the credentials of the tools a catalog defines, which a hot reload may change.
    """

    def __init__(
        self,
        secrets: Iterable[str] = (),
        patterns: Iterable[str] = (),
        *,
        builtin: bool = True,
    ) -> None:
        # The built-in shapes are one alternation (one scan of the text, not one per shape);
        # the operator's stay apart, their groups and flags are theirs.
        self._builtin = _one_alternation(BUILTIN_SECRET_PATTERNS.values()) if builtin else None
        self._shapes = [re.compile(p) for p in patterns]
        self._values: set[str] = set()
        self._short: dict[str, str | None] = {}
        """Short strings already redacted, and what they became (None: nothing); cleared by
        ``learn``."""
        self._by_value: re.Pattern[str] | None = None
        self._value_begun: re.Pattern[str] | None = None
        self.hold_chars = SHAPE_HOLD_CHARS
        """What ``hold_back`` keeps unsent: the longest shape or known value."""
        self.learn(secrets)

    def learn(self, secrets: Iterable[str]) -> None:
        """Redact these exact values too from now on."""
        fresh = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH and s != REDACTED}
        if fresh <= self._values:
            return
        self._values |= fresh
        self._short.clear()
        # Longest first, so a secret that contains another is blanked whole.
        ordered = sorted(self._values, key=len, reverse=True)
        self._by_value = re.compile("|".join(re.escape(v) for v in ordered))
        self._value_begun = re.compile("|".join(_prefix_at_end(v) for v in ordered))
        self.hold_chars = max(SHAPE_HOLD_CHARS, len(ordered[0]))

    def redact(self, text: str) -> str:
        """``text`` with every secret in it replaced; the same object when there was none."""
        if len(text) > _SHORT:
            return self._redact(text)
        # Most strings of an event are its field names and ids, the same on every event.
        done = self._short.get(text, text)
        if done is text:
            if len(self._short) >= _SHORT_KEPT:
                self._short.clear()
            redacted = self._redact(text)
            done = self._short[text] = None if redacted is text else redacted
        return text if done is None else done

    def _redact(self, text: str) -> str:
        out = text
        if self._by_value is not None:
            out = self._by_value.sub(REDACTED, out)
        for shape in self._shapes_in(out):
            out = shape.sub(_replacement, out)
        return text if out == text else out

    def redact_data(self, value: _T) -> _T:
        """``value`` (JSON-like: dicts, lists, tuples, strings, scalars) with every string in it
        redacted, keys included; the same object when nothing changed."""
        return _redact_value(self, value)  # type: ignore[no-any-return]

    def replacements(self, text: str) -> list[Replacement]:
        """Where ``redact`` blanks ``text``, as non-overlapping ``(start, end, "[REDACTED]")``:
        leftmost first, the longest on a tie (a pattern's ``secret`` group only)."""
        found: list[Replacement] = []
        if self._by_value is not None:
            found += [(m.start(), m.end(), REDACTED) for m in self._by_value.finditer(text)]
        for shape in self._shapes_in(text):
            found += [_secret_span(m) for m in shape.finditer(text)]
        found.sort(key=lambda r: (r[0], -r[1]))
        kept: list[Replacement] = []
        for replacement in found:
            if not kept or replacement[0] >= kept[-1][1]:
                kept.append(replacement)
        return kept

    def _shapes_in(self, text: str) -> list[re.Pattern[str]]:
        """The shapes worth running over ``text``: the built-ins only when a trigger is in it."""
        if self._builtin is None:
            return self._shapes
        if _TRIGGER.search(text.lower()):
            return [self._builtin, *self._shapes]
        return self._shapes

    def hold_back(self) -> HoldBack:
        """A filter for one stream of text deltas that redacts a secret split across deltas
        (``runyard.redaction.hold_back``). It holds back at most ``hold_chars`` characters: with
        only the built-in shapes (none of which has white space in what it blanks), the last
        word and whatever could be the beginning of a known value; with operator patterns,
        whose matches may span words, all ``hold_chars``. Without operator patterns, text that
        is ``settled`` leaves at once, held words and all."""
        if self._shapes:
            return HoldBack(self.replacements, self.hold_chars)
        return HoldBack(self.replacements, self.hold_chars, self.pending, self.settled)

    def settled(self, text: str) -> bool:
        """True when ``text`` holds no secret and none can grow out of its end, whatever comes
        next: a stream may then send it whole, unscanned (``HoldBack``). Always False with
        operator patterns, whose matches may be anything."""
        if self._shapes:
            return False
        values, begun = self._by_value, self._value_begun
        if values is not None and begun is not None and (values.search(text) or begun.search(text)):
            return False
        if self._builtin is None:
            return True
        lower = text.lower()
        if _TRIGGER.search(lower):
            return False
        if lower.endswith(_RUNYARD_KEY_PREFIXES):
            return False
        # A key's beginning is at most 3 characters: 4 hold it and the word boundary before it.
        word = _LAST_WORD.search(lower, max(len(lower) - 4, 0))
        return word is None or word.group() not in _KEY_PREFIXES

    def pending(self, text: str) -> int:
        """Where in ``text`` a secret that is not complete yet may begin: at the last word, or
        earlier where the end of ``text`` is the beginning of a known value."""
        begins = len(text)
        if text and not text[-1].isspace():
            begins -= len(text.rsplit(maxsplit=1)[-1])
        if self._value_begun is not None and (value := self._value_begun.search(text)):
            begins = min(begins, value.start())
        return begins


def _prefix_at_end(value: str) -> str:
    """A pattern of any beginning of ``value`` that ends the text: ``a(?:b(?:c)?)?\\Z``."""
    nested = ""
    for char in reversed(value[1:]):
        nested = f"(?:{re.escape(char)}{nested})?"
    return f"{re.escape(value[0])}{nested}\\Z"


def _one_alternation(patterns: Iterable[str]) -> re.Pattern[str]:
    """The patterns as one regular expression: a leading ``(?i)`` scoped to its pattern, each
    ``secret`` group numbered (``secret0``, ``secret1``, …) so the names stay unique."""
    parts: list[str] = []
    for index, pattern in enumerate(patterns):
        flags = _GLOBAL_FLAGS.match(pattern)
        body = pattern[flags.end() :] if flags else pattern
        body = body.replace("(?P<secret>", f"(?P<secret{index}>")
        parts.append(f"(?{flags.group(1) if flags else ''}:{body})")
    return re.compile("|".join(parts))


def _secret_group(match: re.Match[str]) -> str | None:
    """The name of the ``secret`` group that took part in ``match``, if any."""
    for name in match.re.groupindex:
        if _SECRET_GROUP.fullmatch(name) and match.group(name) is not None:
            return name
    return None


def _secret_span(match: re.Match[str]) -> Replacement:
    group = _secret_group(match)
    start, end = match.span(group) if group else match.span()
    return start, end, REDACTED


def _replacement(match: re.Match[str]) -> str:
    group = _secret_group(match)
    if group is None:
        return REDACTED
    start, end = match.span(group)
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + REDACTED + whole[end - offset :]


def _redact_value(redactor: SecretRedactor, value: Any) -> Any:
    # Every event passes here before it is stored: most of them hold no secret, so nothing is
    # copied until the first string that changes.
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, dict | Mapping):
        return _redact_mapping(redactor, value)
    if isinstance(value, list | tuple):
        return _redact_sequence(redactor, value)
    return value


def _redact_mapping(redactor: SecretRedactor, value: Mapping[Any, Any]) -> Mapping[Any, Any]:
    copied: dict[Any, Any] | None = None
    for index, (key, item) in enumerate(value.items()):
        clean_key, clean_item = _redact_value(redactor, key), _redact_value(redactor, item)
        if copied is None:
            if clean_key is key and clean_item is item:
                continue
            copied = dict(islice(value.items(), index))
        copied[clean_key] = clean_item
    return value if copied is None else copied


def _redact_sequence(
    redactor: SecretRedactor, value: list[Any] | tuple[Any, ...]
) -> list[Any] | tuple[Any, ...]:
    redacted: list[Any] | None = None
    for index, item in enumerate(value):
        clean = _redact_value(redactor, item)
        if redacted is None:
            if clean is item:
                continue
            redacted = list(value[:index])
        redacted.append(clean)
    if redacted is None:
        return value
    return redacted if isinstance(value, list) else tuple(redacted)
