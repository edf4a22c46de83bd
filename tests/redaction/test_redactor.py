"""``SecretRedactor``: known values and credential shapes become ``[REDACTED]``, nothing else
changes, and redacting twice changes nothing more."""

from __future__ import annotations

import re

import pytest

from runyard.redaction import (
    BUILTIN_SECRET_PATTERNS,
    REDACTED,
    SHAPE_HOLD_CHARS,
    SecretRedactor,
    substitute,
)

API_KEY = "ryk_" + "A1b2C3d4E5f6" + "x" * 43


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key {API_KEY} used", f"key {REDACTED} used"),
        ("Authorization: Bearer abc.def-ghi_123", f"Authorization: Bearer {REDACTED}"),
        ("{'authorization': 'Basic dXNlcjpwYXNz'}", f"{{'authorization': 'Basic {REDACTED}'}}"),
        ('"Proxy-Authorization": "raw-token-1"', f'"Proxy-Authorization": "{REDACTED}"'),
        ("sent bearer eyJhbGciOiJIUzI1NiJ9.x", f"sent bearer {REDACTED}"),
        ("postgresql://app:s3cr3t@db:5432/x", f"postgresql://{REDACTED}@db:5432/x"),
        ("https://ghp_token@github.com/o/r", f"https://{REDACTED}@github.com/o/r"),
        ("OPENAI sk-proj-abcdefghijklmnopqrstuvwx1", f"OPENAI {REDACTED}"),
        ("anthropic sk-ant-api03-abcdefghijklmnopqrstu", f"anthropic {REDACTED}"),
        ("google AIza" + "b" * 35, f"google {REDACTED}"),
        ("aws AKIAABCDEFGHIJKLMNOP", f"aws {REDACTED}"),
    ],
)
def test_credential_shapes_are_redacted(text: str, expected: str) -> None:
    assert SecretRedactor().redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the bearer of bad news",
        "mail alice@example.com at http://example.com/a?b=c@d",
        "Authorization: Bearer [REDACTED]",
        "a task-list of skills",
        "ryk_short",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    redactor = SecretRedactor()
    assert redactor.redact(text) is text


def test_known_values_are_redacted_wherever_they_appear_longest_first() -> None:
    redactor = SecretRedactor(["hunter22", "hunter22-and-more", "abc"])
    assert redactor.redact("x=hunter22-and-more y=hunter22;abc") == (
        f"x={REDACTED} y={REDACTED};abc"  # "abc" is shorter than MIN_SECRET_LENGTH
    )


def test_values_learnt_later_are_redacted_from_then_on() -> None:
    redactor = SecretRedactor()
    assert redactor.redact("token 0xfeedface") == "token 0xfeedface"
    redactor.learn(["0xfeedface"])
    assert redactor.redact("token 0xfeedface") == f"token {REDACTED}"


def test_an_operator_pattern_redacts_its_secret_group_or_the_whole_match() -> None:
    redactor = SecretRedactor(patterns=[r"acme-\d{6}", r"pin=(?P<secret>\d{4})"])
    assert redactor.redact("order acme-123456 pin=1234") == f"order {REDACTED} pin={REDACTED}"


def test_an_invalid_pattern_is_refused() -> None:
    with pytest.raises(Exception, match="unterminated"):
        SecretRedactor(patterns=["(oops"])


def test_redaction_is_idempotent() -> None:
    redactor = SecretRedactor(["topsecret1"], [r"acme-\d{6}"])
    text = f"Authorization: Bearer {API_KEY} topsecret1 postgresql://u:p@h/d acme-000001"
    once = redactor.redact(text)
    assert redactor.redact(once) == once
    assert "topsecret1" not in once
    assert API_KEY not in once


def test_data_is_redacted_in_every_string_and_kept_when_clean() -> None:
    redactor = SecretRedactor(["topsecret1"])
    clean = {"a": [1, "x", ("y", None)], "b": {"c": True}}
    assert redactor.redact_data(clean) is clean
    dirty = {"topsecret1": ["ok", ("topsecret1", 2)], "n": 3, "d": {"e": "a topsecret1"}}
    assert redactor.redact_data(dirty) == {
        REDACTED: ["ok", (REDACTED, 2)],
        "n": 3,
        "d": {"e": f"a {REDACTED}"},
    }


def _one_shape_at_a_time(text: str) -> str:
    """What redacting with each built-in shape in turn gives (the redactor runs them as one)."""

    def replace(match: re.Match[str]) -> str:
        if "secret" not in match.re.groupindex or match.group("secret") is None:
            return REDACTED
        start, end = (i - match.start() for i in match.span("secret"))
        return match.group(0)[:start] + REDACTED + match.group(0)[end:]

    for pattern in BUILTIN_SECRET_PATTERNS.values():
        text = re.sub(pattern, replace, text)
    return text


CORPUS = [
    f"key {API_KEY} used; Authorization: Bearer {API_KEY}",
    "Authorization: Basic dXNlcjpwYXNz and bearer eyJhbGciOiJIUzI1NiJ9.x",
    "postgresql://app:sk-abcdefghijklmnopqrstuvwxyz@db/x https://ghp_token@github.com/o/r",
    "hf_" + "a" * 34 + " gsk_" + "b" * 24 + " xai-" + "c" * 24 + " AKIAABCDEFGHIJKLMNOP",
    "'proxy-authorization': 'tok' then sk-ant-api03-abcdefghijklmnopqrstu, AIza" + "b" * 35,
    "the bearer of bad news at http://example.com/a?b=c@d",
]


@pytest.mark.parametrize("text", CORPUS)
def test_the_shapes_as_one_alternation_redact_as_the_shapes_one_at_a_time(text: str) -> None:
    assert SecretRedactor().redact(text) == _one_shape_at_a_time(text)


@pytest.mark.parametrize("text", CORPUS)
def test_the_replacements_a_stream_uses_give_the_redacted_text(text: str) -> None:
    redactor = SecretRedactor(["known-value-123"])
    text = f"{text} known-value-123"
    assert substitute(text, redactor.replacements(text), 0, len(text)) == redactor.redact(text)


def test_the_hold_back_covers_the_longest_known_value() -> None:
    redactor = SecretRedactor()
    assert redactor.hold_chars == SHAPE_HOLD_CHARS
    redactor.learn(["x" * 200])
    assert redactor.hold_chars == 200


def test_a_short_string_seen_before_is_answered_alike_and_learning_forgets_it() -> None:
    redactor = SecretRedactor()
    first, again = "agent-001", "".join(["agent-", "001"])
    assert redactor.redact(first) is first
    assert redactor.redact(again) is again  # unchanged text is the caller's own object
    assert redactor.redact("key=secret-1") == "key=secret-1"
    redactor.learn(["secret-1"])
    assert redactor.redact("key=secret-1") == f"key={REDACTED}"
