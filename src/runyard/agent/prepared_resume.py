"""``PreparedResume``: a resume checked against its run's checkpoint, ready to run.

Preparing loads the checkpoint once, finds the waiting call and validates the data against the
call's resume schema; running it reuses that state. A caller that must check the data before it
commits to the resume (the service stores the answer in between) needs no second load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runyard.errors import ResumeDataError
from runyard.runtime import AgentState, NestedSuspension, SubAgentAnswer
from runyard.tools import JsonSchemaValidator

__all__ = ["PreparedResume", "nested_answer"]


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
