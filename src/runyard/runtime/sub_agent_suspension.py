"""A sub-agent's suspension carried by the tool call that runs it (nested suspension).

A sub-agent tool (``Agent.as_tool``, the service's ``delegate``) runs another agent inside one of
its caller's tool calls. When that sub-agent suspends, the tool returns ``SubAgentSuspend`` with
the sub-agent's checkpointed state: the caller's call suspends in turn, its checkpoint keeps the
sub-agent's state (``PendingToolCall.nested``), and the sub-agent's questions become the caller's
``tool-call-suspended`` chunks, each naming the sub-agent that asks. Answering one resumes the
caller at that call, and the tool gets ``SubAgentAnswer`` as its ``resume_data``: it resumes the
sub-agent from the state with the answer and returns what the sub-agent ends with — a result, or
another ``SubAgentSuspend`` while questions remain. The runtime never builds or runs the
sub-agent itself; only the tool knows how.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runyard.runtime.state import AgentState

__all__ = ["SubAgentAnswer", "SubAgentSuspend"]


@dataclass(frozen=True, slots=True)
class SubAgentSuspend:
    """What a sub-agent tool returns when its sub-agent suspended.

    ``state`` is the sub-agent's suspended run (taken out of its own checkpoint store: the
    caller's checkpoint keeps it from now on); ``agent_id`` is how the tool names the sub-agent to
    whoever answers (the service's agent id in the activity tree).
    """

    state: AgentState
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class SubAgentAnswer:
    """The ``ToolContext.resume_data`` of a sub-agent tool when one of its sub-agent's questions
    was answered: resume the sub-agent's ``state`` with ``data`` for its call ``tool_call_id``
    (already checked against that call's resume schema)."""

    agent_id: str | None
    state: AgentState
    tool_call_id: str
    data: Any
