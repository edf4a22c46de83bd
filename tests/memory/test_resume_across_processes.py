"""A run suspended for approval in one process is approved and finished by another one that
shares only the database (a SQLite file, or PostgreSQL): the tool runs once and every message is
stored once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from memory_resume_worker import note_tool

from runyard.agent import Agent
from runyard.errors import ResumeError
from runyard.memory import Memory
from runyard.messages import AgentMessage
from runyard.storage import open_store
from runyard.testing import ToolCall, Turn, scripted_model

WORKER = Path(__file__).with_name("memory_resume_worker.py")


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        url: str = request.getfixturevalue("memory_postgres_url")
        return url
    return f"sqlite:///{tmp_path / 'shared.db'}"


async def test_a_second_process_approves_and_completes_the_suspended_run(
    shared_url: str, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.txt"
    thread = f"t-{uuid.uuid4().hex}"  # the PostgreSQL database is shared by the session
    store = await open_store(shared_url)
    try:
        model = scripted_model([Turn(tool_calls=[ToolCall("save_note", {"note": "buy milk"})])])
        agent = Agent("notes", model, tools=[note_tool(effects)], memory=Memory(store))
        suspended = await agent.generate("note: buy milk", thread_id=thread, resource_id="alice")
        (pending,) = suspended.pending_suspend
        assert not effects.exists()

        finished = await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                str(WORKER),
                shared_url,
                suspended.run_id,
                pending.tool_call_id,
                str(effects),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=WORKER.parent,
        )
        assert finished.returncode == 0, finished.stderr
        assert json.loads(finished.stdout) == {"finish_reason": "stop", "text": "Saved your note."}

        assert effects.read_text() == "buy milk\n"
        stored = await store.get_messages(thread, tenant_id="default", resource_id="alice")
        assert [(m.role, m.text) for m in stored if isinstance(m, AgentMessage)] == [
            ("user", "note: buy milk"),
            ("assistant", ""),
            ("tool", ""),
            ("assistant", "Saved your note."),
        ]
        assert len({m.id for m in stored}) == 4
        assert await store.load_checkpoint(suspended.run_id) is None
        with pytest.raises(ResumeError):  # process A cannot approve it a second time
            await agent.approve(
                "generate", run_id=suspended.run_id, tool_call_id=pending.tool_call_id
            )
        assert effects.read_text() == "buy milk\n"
    finally:
        await store.close()
