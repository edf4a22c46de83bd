"""An assistant whose first tool call waits until its run is stopped (cancelled, handed over)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


def blocking_agents(started: asyncio.Event) -> Callable[[Store], list[Agent]]:
    """Agents for a store: ``assistant`` calls ``wait_forever``, which sets ``started`` and
    never returns by itself."""

    @tool
    async def wait_forever() -> str:
        """Wait for something that never comes."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("wait_forever", id="call_w"), text("unreachable")])
        return [Agent("assistant", model, tools=[wait_forever], memory=Memory(store))]

    return build
