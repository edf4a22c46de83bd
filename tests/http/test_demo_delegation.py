"""The README's and docs/ui.md's demo line for a sub-agent: with the offline demo model, the
default agent delegates, and the sub-agent plays its briefing, so its branch calls the calculator."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app

from sqlite_databases import MigratedSqlite

ROOT = Path(__file__).resolve().parents[2]


def demo_line(doc: Path) -> str:
    """The ``/tool delegate`` line the document shows in a ``text`` block."""
    blocks = re.findall(r"```text\n(/tool delegate .*)\n```", doc.read_text())
    assert len(blocks) == 1, doc
    return str(blocks[0])


@pytest.mark.parametrize("doc", ["README.md", "docs/ui.md"])
async def test_the_documented_line_shows_a_sub_agent_calling_the_calculator(
    doc: str, tmp_path: Path, migrated_sqlite: MigratedSqlite
) -> None:
    url = migrated_sqlite.file(tmp_path / "runyard.db")
    async with running_app(url) as app, asgi_client(app) as client:
        started = await client.post("/v1/chat/t1", json={"message": demo_line(ROOT / doc)})
        assert started.status_code == 200, started.text
        async with asgi_sse(app, "/v1/events/t1") as stream:
            events = [f.data for f in await stream.until("run-finish") if f.data is not None]

    spawned = next(e for e in events if e["type"] == "agent-spawned")
    child = spawned["agentId"]
    calls = [e for e in events if e["type"] == "tool-call" and e["agentId"] == child]
    results = [e for e in events if e["type"] == "tool-result" and e["agentId"] == child]
    assert [c["payload"]["toolName"] for c in calls] == ["calculator"]
    assert "14" in json.dumps(results[0]["payload"])  # 2+3*4
    assert any(e["type"] == "agent-completed" and e["agentId"] == child for e in events)
    assert events[-1]["type"] == "run-finish"
    assert events[-1]["payload"]["status"] == "completed"
