"""Reading what a scripted model was sent, in runyard's own message types."""

from __future__ import annotations

from pydantic_ai import messages as pai

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
