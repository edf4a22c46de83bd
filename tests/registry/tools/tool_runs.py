"""Running built tools the way an agent does: a scripted model calls them, we read the results."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from runyard.agent import Agent
from runyard.messages import ToolResultPart
from runyard.runtime import GenerateResult
from runyard.testing import ToolCall, Turn, scripted_model, text
from runyard.tools import Tool


def agent_calling(tools: Sequence[Tool], *calls: tuple[str, dict[str, Any]]) -> Agent:
    """An agent whose model makes ``calls`` in one turn (all at once), then answers "done"."""
    turn = Turn(
        tool_calls=[ToolCall(name, args, id=f"c{n}") for n, (name, args) in enumerate(calls)]
    )
    return Agent(
        "caller",
        scripted_model([turn, text("done")]),
        tools=list(tools),
        tool_call_concurrency=math.inf,
    )


def results(result: GenerateResult) -> dict[str, ToolResultPart]:
    """The run's tool results by tool call id."""
    return {
        part.tool_call_id: part
        for message in result.messages
        for part in message.parts
        if isinstance(part, ToolResultPart)
    }
