"""Result shapes of a run: ``GenerateResult`` and the records it carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runyard.messages import AgentMessage, CustomMessage
from runyard.models import Usage

__all__ = [
    "AgentToolOutput",
    "GenerateResult",
    "PendingSuspend",
    "SubAgentUsage",
    "ToolCallRecord",
    "total_cost",
    "total_usage",
    "usage_as_sub_agent",
]


@dataclass(frozen=True, slots=True)
class PendingSuspend:
    """A tool call waiting for an answer: what it asked (``payload``) and the answer's schema.

    ``agent_id`` is set when a sub-agent asks (a call of a sub-agent tool's run, named as that
    tool names it); the answer still goes to ``run_id`` with this ``tool_call_id``.
    """

    run_id: str
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    payload: Any
    resume_schema: dict[str, Any] | None
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class SubAgentUsage:
    agent: str
    model: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """A tool call that succeeded: its arguments and its raw output (before ``to_model_output``)."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    output: Any
    transformed: bool = False


@dataclass(frozen=True, slots=True)
class AgentToolOutput:
    """What a sub-agent tool (``Agent.as_tool``) returns: the model-facing output plus usage."""

    output: Any
    sub_agent_usage: list[SubAgentUsage]


@dataclass(slots=True)
class GenerateResult:
    run_id: str
    messages: list[AgentMessage | CustomMessage]
    finish_reason: str
    usage: Usage
    model: str
    text: str = ""
    structured_output: Any = None
    pending_suspend: list[PendingSuspend] = field(default_factory=list)
    error: BaseException | None = None
    sub_agent_usage: list[SubAgentUsage] = field(default_factory=list)
    total_cost: float | None = None
    tool_calls: list[ToolCallRecord] = field(default_factory=list)

    @property
    def suspended(self) -> bool:
        return bool(self.pending_suspend)


def usage_as_sub_agent(agent: str, model: str, result: GenerateResult) -> list[SubAgentUsage]:
    """What a caller merges into its ``sub_agent_usage`` for a sub-agent's result: the
    sub-agent's own usage, then its sub-agents'."""
    return [SubAgentUsage(agent, model, result.usage), *result.sub_agent_usage]


def total_usage(usage: Usage, sub_agents: list[SubAgentUsage]) -> Usage:
    """The run's own usage plus its sub-agents': what the whole run spent."""
    return sum((s.usage for s in sub_agents), usage)


def total_cost(usage: Usage, sub_agents: list[SubAgentUsage]) -> float | None:
    """The run's own cost plus its sub-agents'; unknown only if every part is unknown."""
    return total_usage(usage, sub_agents).cost
