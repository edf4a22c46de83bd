"""Process B of the cross-process resume test: a fresh Agent on the same database approves.

Run as ``python memory_resume_worker.py DATABASE_URL RUN_ID TOOL_CALL_ID EFFECTS_PATH``; prints
the result as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.storage import open_store
from runyard.testing import scripted_model, text
from runyard.tools import Tool, tool


def note_tool(effects: Path) -> Tool:
    """A gated tool whose every execution leaves a line in ``effects``."""

    @tool(requires_approval=True)
    def save_note(note: str) -> dict[str, str]:
        """Save a note for the user."""
        with effects.open("a") as out:
            out.write(note + "\n")
        return {"saved": note}

    return save_note


async def main(url: str, run_id: str, tool_call_id: str, effects: str) -> None:
    store = await open_store(url)
    try:
        memory = Memory(store)
        model = scripted_model([text("Saved your note.")])
        agent = Agent("notes", model, tools=[note_tool(Path(effects))], memory=memory)
        result = await agent.approve("generate", run_id=run_id, tool_call_id=tool_call_id)
        print(json.dumps({"finish_reason": result.finish_reason, "text": result.text}))
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
