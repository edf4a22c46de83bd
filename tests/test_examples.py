"""The README's example must keep working, offline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_quickstart_runs_offline_and_shows_a_tool_call_an_approval_and_a_stream() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = done.stdout
    assert 'answer: add returned {"sum": 42.0}.' in out
    assert "waiting for approval: send_email" in out
    assert 'approved, answer: send_email returned {"status": "sent to ann@example.com"}.' in out
    assert 'You said: "Hello from the quick start"' in out
    assert "finished: stop" in out
