"""``PreparedResume``: a resume checked against its run's checkpoint, ready to run.

Preparing loads the checkpoint once, finds the waiting call and validates the data against the
call's resume schema (``check_resume``); running it reuses that state. A caller that must check the data before it
commits to the resume (the service stores the answer in between) needs no second load.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runyard.errors import ResumeDataError, ResumeError
from runyard.runtime import (
    AgentModel,
    AgentState,
    MemoryProtocol,
    MemoryScope,
    NestedSuspension,
    SubAgentAnswer,
)
from runyard.tools import JsonSchemaValidator, Tool, resume_validator

__all__ = ["PreparedResume", "check_resume", "nested_answer"]


@dataclass(frozen=True, slots=True)
class PreparedResume:
    """What ``Agent.prepare_resume`` found: the run's ``state`` as its checkpoint kept it, the
    waiting call and ``data`` as its resume validator returned it."""

    run_id: str
    tool_call_id: str
    data: Any
    state: AgentState


def nested_answer(nested: NestedSuspension, tool_call_id: str, data: Any) -> SubAgentAnswer:
    """The resume data of a call whose sub-agent asked ``tool_call_id``: ``data`` checked against
    the schema the sub-agent's call stored (the sub-agent's tools are its tool's business, and
    the answer must be refused now, before anyone stores it)."""
    question = next(q.call for q in nested.state.questions() if q.call.tool_call_id == tool_call_id)
    if question.resume_schema is not None:
        try:
            JsonSchemaValidator(question.resume_schema).validate(data)
        except ValueError as exc:
            raise ResumeDataError(question.tool_name, str(exc)) from exc
    return SubAgentAnswer(nested.agent_id, nested.state, tool_call_id, data)


async def check_resume(
    run_id: str,
    state: AgentState,
    data: Any,
    tool_call_id: str,
    *,
    tools: Mapping[str, Tool],
    memory: MemoryProtocol | None,
    model: AgentModel,
) -> PreparedResume:
    """Find the call ``tool_call_id`` that ``state`` waits on and validate ``data`` for it, with
    the agent's ``tools`` (or its ``memory``'s, asked with ``model``).

    Raises ``ResumeError`` when the call is not waiting or its tool is unknown, and
    ``ResumeDataError`` when ``data`` does not fit.
    """
    entry = state.waiting_call(tool_call_id)
    if entry is None:
        raise ResumeError(f"No tool call found for toolCallId: {tool_call_id}")
    if entry.nested is not None:
        answer = nested_answer(entry.nested, tool_call_id, data)
        return PreparedResume(run_id, entry.tool_call_id, answer, state)
    known = tools.get(entry.tool_name) or await _memory_tool(memory, model, state, entry.tool_name)
    if known is None:
        raise ResumeError(f"Tool {entry.tool_name} not found")
    validator = resume_validator(known)
    if validator is None and entry.resume_schema is not None:
        # A middleware put the call behind a gate the tool lacks (approval_policy): the
        # answer is checked against the schema the call suspended with.
        validator = JsonSchemaValidator(entry.resume_schema)
    if validator is not None:
        try:
            data = validator.validate(data)
        except ValueError as exc:
            raise ResumeDataError(entry.tool_name, str(exc)) from exc
    return PreparedResume(run_id, tool_call_id, data, state)


async def _memory_tool(
    memory: MemoryProtocol | None, model: AgentModel, state: AgentState, name: str
) -> Tool | None:
    if memory is None or not (state.thread_id and state.resource_id):
        return None
    scope = MemoryScope(state.thread_id, state.resource_id, state.tenant_id or "default")
    context = await memory.context(scope, model=model)
    return next((t for t in context.tools if t.name == name), None)
