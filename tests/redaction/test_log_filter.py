"""Log records reach no handler with a secret: message, arguments, traceback and stack."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from runyard.redaction import REDACTED, RedactingLogFilter, SecretRedactor, redacted_logs

SECRET = "sk-live-canary-0123456789abcdef"


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    """A handler on the root logger writing to a string, with the standard formatter."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield out
    finally:
        root.removeHandler(handler)


def test_messages_arguments_and_tracebacks_are_redacted(stream: io.StringIO) -> None:
    log = logging.getLogger("runyard.test.redaction")
    with redacted_logs(SecretRedactor([SECRET])):
        log.warning("calling with %s", SECRET)
        log.warning(f"inline {SECRET}")
        try:
            raise RuntimeError(f"provider said: bad key {SECRET}")
        except RuntimeError:
            log.exception("the model failed")
        log.warning("with stack", stack_info=True, extra={"note": 1})
    text = stream.getvalue()
    assert SECRET not in text
    assert text.count(REDACTED) >= 3
    assert "RuntimeError: provider said: bad key [REDACTED]" in text
    assert "Traceback (most recent call last)" in text


def test_the_filter_is_removed_when_the_block_ends(stream: io.StringIO) -> None:
    log = logging.getLogger("runyard.test.redaction")
    with redacted_logs(SecretRedactor([SECRET])):
        pass
    log.warning("after %s", SECRET)
    assert SECRET in stream.getvalue()


def test_uvicorn_access_records_keep_their_arguments() -> None:
    """uvicorn's access formatter unpacks ``args``: they stay a tuple of five, redacted."""
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", f"/v1/threads?key={SECRET}", "1.1", 200),
        None,
    )
    assert RedactingLogFilter(SecretRedactor([SECRET])).filter(record)
    assert record.args == ("127.0.0.1:5", "GET", f"/v1/threads?key={REDACTED}", "1.1", 200)


def test_a_record_with_nothing_secret_is_untouched() -> None:
    args = ("x", 1)
    record = logging.LogRecord("runyard", logging.INFO, __file__, 1, "%s %d", args, None)
    RedactingLogFilter(SecretRedactor([SECRET])).filter(record)
    assert (record.msg, record.args) == ("%s %d", args)
