"""Reading what a scripted model was sent, in runyard's own message types."""

from __future__ import annotations

import asyncio
import re

from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.messages import AgentMessage
from runyard.models import from_model_messages
from runyard.runtime import MemoryScope
from runyard.testing import ScriptedModel

ALICE = MemoryScope("t-alice", "alice")


def sent(model: ScriptedModel, request: int = -1) -> list[AgentMessage]:
    """The messages of one request the model got."""
    return from_model_messages(model.requests[request])


def sent_texts(model: ScriptedModel, request: int = -1) -> list[str]:
    """The text of each message of one request (tool messages as ``tool:<name>``)."""
    return [
        m.text if m.role != "tool" else "tool:" + ",".join(p.tool_name for p in m.tool_results)
        for m in sent(model, request)
    ]


def instructions(model: ScriptedModel, request: int = -1) -> str:
    """The system instructions of one request."""
    found = [
        m.instructions
        for m in model.requests[request]
        if isinstance(m, pai.ModelRequest) and m.instructions
    ]
    return found[-1] if found else ""


class Observer:
    """A deterministic observer/reflector model: counts its calls and can be held or fail.

    As observer it writes one ``IMPORTANT`` line per user message of the transcript; as
    reflector it answers with ``reflection``.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.seen: list[list[pai.ModelMessage]] = []
        """What each call was sent."""
        self.active = 0
        self.most_active = 0
        """The most calls that were ever in flight at once."""
        self.reflections = 0
        self.failures_left = 0
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()
        self.reflection = "Date: 2026-01-02\n* CRITICAL (09:30) condensed history"
        self.model = FunctionModel(self._respond, model_name="observer")

    async def _respond(
        self, messages: list[pai.ModelMessage], info: AgentInfo
    ) -> pai.ModelResponse:
        self.seen.append(messages)
        self.active += 1
        self.most_active = max(self.most_active, self.active)
        try:
            return await self._answer(messages, info)
        finally:
            self.active -= 1

    async def _answer(self, messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        if "condense" in (info.instructions or ""):
            self.reflections += 1
            return pai.ModelResponse(parts=[pai.TextPart(self.reflection)])
        self.calls += 1
        if self.failures_left:
            self.failures_left -= 1
            raise RuntimeError("observer unavailable")
        prompt = from_model_messages(messages)[-1].text
        said = re.findall(r"\] user: (.*)", prompt)
        lines = [f"* IMPORTANT (10:{i:02d}) user said {text}" for i, text in enumerate(said)]
        return pai.ModelResponse(parts=[pai.TextPart("\n".join(lines) or "nothing")])


def words(prefix: str, count: int = 19) -> str:
    """A message of ``count + 1`` short words (about one token each)."""
    return " ".join([prefix] + ["word"] * count)
