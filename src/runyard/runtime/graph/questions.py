"""A graph's ``interrupt()`` → the question the run suspends on, and its answer → the value the
graph is resumed with.

Four kinds of interrupt, told apart by their value:

- a runyard tool's suspension (``RunyardTool``: an approval gate, a tool's ``Suspend``): the
  tool's own question; its answer goes to the tool as ``resume_data``;
- LangChain's human-in-the-loop middleware, one call at a time (``{"type": "tool_approval"}``)
  or a model turn's calls together (``{"action_requests": [...]}``): an approval of the call,
  answered as runyard's are (``approved``, ``reason``, edited ``args``; ``userInput`` answers
  in the tool's place) and resumed with LangChain's decisions;
- anything else: the graph's own question, a free-text answer unless its value carries the
  protocol's fields; ``interrupt()`` returns the answer's ``value``, else its ``userInput``,
  else the whole answer.

The last three keep their kind in the question's payload (``GRAPH_QUESTION``), so the process
that takes the answer — any replica, after a restart — turns it into the same resume value.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import Interrupt
from pydantic_core import to_jsonable_python

from runyard.errors import ResumeDataError
from runyard.runtime.graph.tools import QUESTION_MARK
from runyard.runtime.state import PendingToolCall
from runyard.tools import APPROVAL_RESUME

__all__ = ["GRAPH_QUESTION", "INTERRUPT_TOOL", "graph_answer", "is_graph_question", "question_of"]

INTERRUPT_TOOL = "interrupt"
"""The tool name of a question a graph asks with ``interrupt()`` outside any tool."""

GRAPH_QUESTION = "langgraph"
"""The payload key of a question the graph asked itself, naming its kind."""

_APPROVAL_ANSWER = {
    **APPROVAL_RESUME.json_schema,
    "properties": {
        **APPROVAL_RESUME.json_schema["properties"],
        # the person answers in the tool's place (LangChain's "respond" decision)
        "userInput": {"type": "string"},
    },
}


def question_of(interrupt: Interrupt) -> tuple[PendingToolCall, str]:
    """The call the run waits on for ``interrupt``, and the interrupt's id (what its answer
    resumes)."""
    value = interrupt.value
    if isinstance(value, dict) and value.get(QUESTION_MARK):
        entry = PendingToolCall(
            tool_call_id=value["tool_call_id"],
            tool_name=value["tool_name"],
            args=value["args"],
            suspended=True,
            payload=value["payload"],
            resume_schema=value["resume_schema"],
        )
    elif isinstance(value, dict) and value.get("type") == "tool_approval":
        entry = _approval(value["tool_call_id"], value["name"], value["args"], "tool_approval")
        entry.payload["message"] = value.get("description") or entry.payload["message"]
    elif isinstance(value, dict) and isinstance(value.get("action_requests"), list):
        actions = value["action_requests"]
        if len(actions) == 1:
            entry = _approval(interrupt.id, actions[0]["name"], actions[0]["args"], "batched")
        else:
            entry = _approval(interrupt.id, INTERRUPT_TOOL, {"actions": actions}, "batched")
    else:
        entry = _free_question(interrupt.id, to_jsonable_python(value, fallback=str))
    return entry, interrupt.id


def is_graph_question(entry: PendingToolCall) -> bool:
    """Whether the graph asked ``entry`` itself (its answer goes to the graph, not a tool)."""
    return isinstance(entry.payload, dict) and GRAPH_QUESTION in entry.payload


def graph_answer(entry: PendingToolCall, data: Any) -> Any:
    """The value the graph is resumed with for the answer ``data`` to its own question."""
    kind = entry.payload[GRAPH_QUESTION]
    if kind == INTERRUPT_TOOL:
        if isinstance(data, dict):
            if "value" in data:
                return data["value"]
            if isinstance(data.get("userInput"), str):
                return data["userInput"]
        return data
    decision = _decision(entry, data)
    if kind == "tool_approval":
        return decision
    actions = entry.args.get("actions") if entry.tool_name == INTERRUPT_TOOL else None
    count = len(actions) if isinstance(actions, list) else 1
    if isinstance(data, dict) and isinstance(data.get("decisions"), list):
        return {"decisions": data["decisions"]}
    return {"decisions": [decision] * count}


def _approval(call_id: str, name: str, args: dict[str, Any], kind: str) -> PendingToolCall:
    payload = {
        "type": "approval",
        "tool_name": name,
        "args": args,
        "message": f'Allow "{name}" to run?',
        GRAPH_QUESTION: kind,
    }
    return PendingToolCall(
        tool_call_id=call_id,
        tool_name=name,
        args=args,
        suspended=True,
        payload=payload,
        resume_schema=_APPROVAL_ANSWER,
    )


def _free_question(interrupt_id: str, value: Any) -> PendingToolCall:
    """The graph's own question: a free-text answer unless its value says otherwise (it may
    carry the protocol's fields: ``message``, ``inputType``, …); a text, or a value's
    ``question``, is its message."""
    payload: dict[str, Any] = {"inputType": "text"}
    if isinstance(value, str):
        payload["message"] = value
    elif isinstance(value, dict):
        payload.update(value)
        if "message" not in value and isinstance(value.get("question"), str):
            payload["message"] = value["question"]
    payload[GRAPH_QUESTION] = INTERRUPT_TOOL
    return PendingToolCall(
        tool_call_id=interrupt_id,
        tool_name=INTERRUPT_TOOL,
        args=value if isinstance(value, dict) else {"value": value},
        suspended=True,
        payload=payload,
    )


def _decision(entry: PendingToolCall, data: Any) -> dict[str, Any]:
    """LangChain's human-in-the-loop decision for an approval answer."""
    if not isinstance(data, dict) or not isinstance(data.get("approved"), bool):
        raise ResumeDataError(entry.tool_name, "the answer needs approved: true or false")
    if not data["approved"]:
        reason = data.get("reason")
        return {"type": "reject", "message": reason} if reason else {"type": "reject"}
    if isinstance(data.get("userInput"), str):  # the person answers in the tool's place
        return {"type": "respond", "message": data["userInput"]}
    if isinstance(data.get("args"), dict):
        return {"type": "edit", "edited_action": {"name": entry.tool_name, "args": data["args"]}}
    return {"type": "approve"}
