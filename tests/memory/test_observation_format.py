"""The observation log's text format and the observer's transcript."""

from __future__ import annotations

import json

from runyard.memory.observational import compact_value, parse_log, render_lines, render_transcript
from runyard.messages import AgentMessage, CustomMessage, ToolCallPart, ToolResultPart
from runyard.storage import Observation

NOON = 1_767_268_800_000  # 2026-01-01 12:00 UTC


def test_observer_lines_parse_into_roots_children_dates_and_times() -> None:
    text = """Here are the observations:
Date: 2026-01-05
* CRITICAL (09:15) User runs the billing service
  - COMPLETION (09:20) Deployed v2
* info: prefers short answers
not an observation
"""
    lines = parse_log(text, NOON)

    assert [(p.marker, p.text, p.child, p.date, p.time) for p in lines] == [
        ("critical", "User runs the billing service", False, "2026-01-05", "09:15"),
        ("completion", "Deployed v2", True, "2026-01-05", "09:20"),
        ("info", "prefers short answers", False, "2026-01-05", "12:00"),
    ]


def test_an_indented_line_before_any_root_becomes_a_root() -> None:
    (line,) = parse_log("  * IMPORTANT orphan detail", NOON)
    assert not line.child
    assert (line.date, line.time) == ("2026-01-01", "12:00")


def test_rendered_lines_parse_back_to_the_same_observations() -> None:
    log = [
        Observation("o1", "t", "root", NOON, marker="critical", metadata={"time": "08:00"}),
        Observation("o2", "t", "child", NOON + 1, marker="completion", parent_id="o1"),
        Observation("o3", "t", "next day", NOON + 86_400_000, marker="info"),
    ]
    text = render_lines(log)

    assert text == (
        "Date: 2026-01-01\n* CRITICAL (08:00) root\n  * COMPLETION (12:00) child\n"
        "Date: 2026-01-02\n* INFO (12:00) next day"
    )
    parsed = parse_log(text, 0)
    assert [(p.text, p.child, p.date) for p in parsed] == [
        ("root", False, "2026-01-01"),
        ("child", True, "2026-01-01"),
        ("next day", False, "2026-01-02"),
    ]


def test_the_transcript_shows_text_and_tool_traffic_but_not_ui_rows() -> None:
    messages = [
        AgentMessage.user("deploy it", created_at=NOON),
        AgentMessage(
            role="assistant",
            parts=[ToolCallPart(tool_call_id="c", tool_name="deploy", args={"env": "prod"})],
            created_at=NOON + 60_000,
        ),
        AgentMessage(
            role="tool",
            parts=[
                ToolResultPart(tool_call_id="c", tool_name="deploy", result="boom", is_error=True)
            ],
            created_at=NOON + 61_000,
        ),
        CustomMessage(type="card", data={"x": 1}, created_at=NOON + 62_000),
    ]

    assert render_transcript(messages) == (
        "[2026-01-01 12:00] user: deploy it\n"
        '[2026-01-01 12:01] assistant: tool_call deploy input={"env": "prod"}\n'
        '[2026-01-01 12:01] tool: tool_result deploy error="boom"'
    )


def test_tool_payloads_are_cut_down_and_secrets_redacted() -> None:
    payload = {
        "api_key": "sk-123",
        "nodes": list(range(30)),
        "log": "x" * 800,
        "headers": {"Authorization": "Bearer abc", "accept": "json"},
    }
    compacted = json.loads(compact_value(payload))

    assert compacted["api_key"] == "[REDACTED]"
    assert compacted["headers"] == {"Authorization": "[REDACTED]", "accept": "json"}
    assert compacted["nodes"][:20] == list(range(20))
    assert compacted["nodes"][20] == "...[10 more items]"
    assert compacted["log"] == "x" * 500 + "...[truncated 300 chars]"
    assert len(compact_value({"k": ["y" * 400] * 20})) < 2100
