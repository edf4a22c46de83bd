"""Scripts for runs whose agents work at the same time (an orchestrator and its background
sub-agents): each agent plays its own script, and a tool waits until the test lets it go.

The agents share one model object (a sub-agent runs on its orchestrator's model), so the order
in which their requests arrive is not fixed; a request is told apart by its instructions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from pydantic_ai import messages as pai

from runyard.testing import ScriptedModel, Turn, scripted_model
from runyard.testing.scripted import TurnSource
from runyard.tools import Tool, tool

__all__ = ["Gate", "last_tool_return", "per_agent_model"]


def per_agent_model(
    orchestrator: Sequence[TurnSource], sub_agents: dict[str, Sequence[TurnSource]]
) -> ScriptedModel:
    """A model playing ``orchestrator``'s turns, and each sub-agent's turns by its instructions."""
    scripts: dict[str | None, list[TurnSource]] = {None: list(orchestrator)}
    scripts.update({instructions: list(turns) for instructions, turns in sub_agents.items()})

    def pick(messages: list[pai.ModelMessage]) -> Turn:
        request = messages[-1]
        instructions = request.instructions if isinstance(request, pai.ModelRequest) else None
        source = scripts[instructions if instructions in scripts else None].pop(0)
        return source if isinstance(source, Turn) else source(messages)

    return scripted_model([pick] * sum(len(turns) for turns in scripts.values()))


def last_tool_return(messages: list[pai.ModelMessage]) -> Any:
    """What the last tool call returned, as the model saw it (decoded JSON)."""
    request = messages[-1]
    assert isinstance(request, pai.ModelRequest)
    (returned,) = [p for p in request.parts if isinstance(p, pai.ToolReturnPart)]
    content = returned.content
    return json.loads(content) if isinstance(content, str) else content


class Gate:
    """A tool ``name`` that says when it started and returns only once the test opens it."""

    def __init__(self, name: str) -> None:
        self.started = asyncio.Event()
        self.opened = asyncio.Event()

        async def wait_at_gate() -> str:
            self.started.set()
            await self.opened.wait()
            return f"{name} passed"

        self.tool: Tool = tool(name=name, description=f"Wait at {name}.")(wait_at_gate)

    async def reached(self) -> None:
        """Wait until the tool has been called."""
        async with asyncio.timeout(20):
            await self.started.wait()

    def open(self) -> None:
        self.opened.set()
