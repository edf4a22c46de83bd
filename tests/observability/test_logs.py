"""Log output: JSON lines carry the request and run ids, tool calls are logged with their
outcome and duration (contents only at debug, redacted), and the format follows the terminal."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from runyard import Agent, tool
from runyard.observability import (
    Metrics,
    bind_log_context,
    configure_logging,
    resolve_format,
)
from runyard.redaction import RedactingLogFilter, RedactingTelemetry, SecretRedactor
from runyard.telemetry.observed import ObservedTelemetry
from runyard.testing import call, scripted_model, text

SECRET = "sk-" + "s" * 40


@tool
async def lookup(key: str) -> str:
    """Look ``key`` up."""
    return f"value of {key}"


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    """The root logger writing JSON lines into a buffer, as ``runyard serve`` sets it up."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    handler = configure_logging("json", level=logging.DEBUG, stream=stream)
    handler.addFilter(RedactingLogFilter(SecretRedactor()))
    try:
        yield stream
    finally:
        for added in list(root.handlers):
            root.removeHandler(added)
        for old in handlers:
            root.addHandler(old)
        root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_json_line_has_time_level_logger_message_and_the_bound_ids(output: io.StringIO) -> None:
    with bind_log_context(request_id="req-1", tenant="acme"):
        logging.getLogger("runyard.test").warning("hello %s", "there")
    (line,) = lines(output)
    assert line.pop("time").endswith("+00:00")
    assert line == {
        "level": "WARNING",
        "logger": "runyard.test",
        "message": "hello there",
        "request_id": "req-1",
        "tenant": "acme",
    }


async def test_tool_calls_are_logged_with_the_run_ids_and_contents_only_at_debug_redacted(
    output: io.StringIO,
) -> None:
    observed = ObservedTelemetry(Metrics()).bound(
        tenant="acme", agent="helper", version="v1", thread_id="t9"
    )
    telemetry = RedactingTelemetry(observed, SecretRedactor())
    model = scripted_model([call("lookup", {"key": SECRET}, id="c1"), text("ok")])
    agent = Agent("helper", model, tools=[lookup])
    with bind_log_context(request_id="req-7"):
        result = await agent.generate("go", telemetry=telemetry)

    tools = [line for line in lines(output) if line["logger"] == "runyard.tools"]
    info, debug = tools
    assert info["level"] == "INFO"
    assert info["message"].startswith("tool lookup: success in ")
    named = ("request_id", "tenant", "agent", "agent_instance_id", "thread_id", "run_id")
    ids = {k: info[k] for k in named}
    assert ids == {
        "request_id": "req-7",
        "tenant": "acme",
        "agent": "helper",
        "agent_instance_id": "helper@v1",
        "thread_id": "t9",
        "run_id": result.run_id,
    }
    assert (info["tool"], info["outcome"], info["tool_call_id"]) == ("lookup", "success", "c1")
    assert info["duration_s"] >= 0
    assert "arguments" not in info
    assert debug["level"] == "DEBUG"
    assert debug["arguments"] == {"key": "[REDACTED]"}
    assert debug["result"] == "value of [REDACTED]"
    assert SECRET not in output.getvalue()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_writes_text_to_a_terminal_and_json_elsewhere() -> None:
    assert resolve_format("auto", _Terminal()) == "text"
    assert resolve_format("auto", io.StringIO()) == "json"
    assert resolve_format("text", io.StringIO()) == "text"
