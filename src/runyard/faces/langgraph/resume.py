"""``resume_answers``: ``command.resume`` as the answers to runyard's waiting questions.

A value answers the one waiting question; with several waiting, resume with
``{interrupt_id: value}`` (LangGraph's map of interrupt ids), or with one
``{"decisions": [...]}`` holding a decision per question, in order. A value is any of:

| resume value | runyard answer |
|---|---|
| ``true`` / ``false``, ``"approve"`` / ``"reject"`` | ``{"approved": true}`` / ``{"approved": false}`` |
| ``{"decisions": [{"type": "approve"}]}`` (LangChain's ``HumanInTheLoopMiddleware``) | ``{"approved": true}`` |
| ``{"type": "reject", "message": "why"}`` | ``{"approved": false, "reason": "why"}`` |
| ``{"type": "edit", "edited_action": {"name", "args"}}`` | ``{"approved": true, "args": {...}}``: the call runs on the edited arguments, checked as the model's are |
| ``{"type": "respond", "message": "text"}``, or a string, for a question asking for text | ``{"approved": true, "userInput": "text"}`` |
| ``{"approved": ..., ...}`` | as ``POST /v1/confirm`` takes it, passed on |

A question a LangGraph agent's graph asked with ``interrupt()`` takes any value: ``{"approved":
true, "value": ...}`` resumes the graph with it. A batched human-in-the-loop question (several
calls of one model turn) takes ``{"decisions": [...]}``, one per call, passed on to the graph.
Anything else is 422 naming ``command.resume``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field
from runyard.protocol import ConfirmationRequestPayload

__all__ = ["GRAPH_INTERRUPT", "resume_answers"]

GRAPH_INTERRUPT = "interrupt"
"""The tool name of a question a LangGraph agent's graph asked with ``interrupt()`` (a batch of
its human-in-the-loop calls too): ``runyard.runtime.graph``'s, which the face does not import
(it needs the ``langgraph`` extra)."""

_FIELD = "command.resume"


def resume_answers(resume: Any, waiting: Sequence[ConfirmationRequestPayload]) -> list[Answer]:
    """The answers ``resume`` gives the ``waiting`` questions; 422 naming the field when it
    fits none, 409 is left to the answer itself (nothing waits: ``ConfirmationNotFound``)."""
    if not waiting:
        raise invalid_field(_FIELD, "no interrupt of this thread waits for an answer")
    ids = {q.request_id for q in waiting}
    if isinstance(resume, dict) and resume and set(resume) <= ids:
        chosen = [q for q in waiting if q.request_id in resume]
        return [_answer(q, resume[q.request_id], f"{_FIELD}.{q.request_id}") for q in chosen]
    decisions = resume.get("decisions") if isinstance(resume, dict) else None
    if isinstance(decisions, list) and len(decisions) == len(waiting) > 1:
        return [
            _answer(q, d, f"{_FIELD}.decisions.{i}")
            for i, (q, d) in enumerate(zip(waiting, decisions, strict=True))
        ]
    if len(waiting) > 1:
        raise invalid_field(
            _FIELD,
            f"{len(waiting)} interrupts wait: resume with {{interrupt_id: value}} or one "
            "decision per interrupt",
        )
    return [_answer(waiting[0], resume, _FIELD)]


def _answer(question: ConfirmationRequestPayload, value: Any, path: str) -> Answer:
    return Answer(question.request_id, _decided(question, value, path))


def _decided(question: ConfirmationRequestPayload, value: Any, path: str) -> dict[str, Any]:
    if question.tool_name == GRAPH_INTERRUPT and (question.input_type or "") == "text":
        # the graph's own interrupt(): its answer is whatever the client resumes with
        text = {"userInput": value} if isinstance(value, str) else {"value": value}
        return {"approved": True, **text}
    asks_text = (question.input_type or "approval") == "text"
    if not isinstance(value, dict):
        return _plain(value, asks_text, path)
    if isinstance(value.get("approved"), bool):
        return value
    decisions = value.get("decisions")
    if isinstance(decisions, list):
        if question.tool_name == GRAPH_INTERRUPT and len(decisions) > 1:
            return {"approved": True, "decisions": decisions}  # a batch: the graph reads them
        if len(decisions) != 1:
            raise invalid_field(f"{path}.decisions", "must hold one decision per interrupt")
        return _decided(question, decisions[0], f"{path}.decisions.0")
    return _decision(question, value, asks_text, path)


def _plain(value: Any, asks_text: bool, path: str) -> dict[str, Any]:
    """The answer a boolean or a string gives."""
    if isinstance(value, bool):
        return {"approved": value}
    if isinstance(value, str) and asks_text:
        return {"approved": True, "userInput": value}
    if value in ("approve", "reject"):
        return {"approved": value == "approve"}
    raise invalid_field(path, "must be `approve`, `reject`, a boolean or a decision object")


def _decision(
    question: ConfirmationRequestPayload, value: dict[str, Any], asks_text: bool, path: str
) -> dict[str, Any]:
    kind, message = value.get("type"), value.get("message")
    if message is not None and not isinstance(message, str):
        raise invalid_field(f"{path}.message", "must be a string")
    if kind == "approve":
        return {"approved": True}
    if kind == "reject":
        return {"approved": False, **({"reason": message} if message else {})}
    if kind == "respond" and asks_text and message:
        return {"approved": True, "userInput": message}
    if kind == "respond":  # an approval's answer in words would run the call: say so
        raise invalid_field(path, "`respond` answers a question asking for text, with a message")
    if kind == "edit":
        return {"approved": True, "args": _edited(question, value.get("edited_action"), path)}
    raise invalid_field(f"{path}.type", "must be `approve`, `edit`, `reject` or `respond`")


def _edited(question: ConfirmationRequestPayload, action: Any, path: str) -> dict[str, Any]:
    """The arguments of an ``edit`` decision's ``edited_action``, for the call it edits."""
    where = f"{path}.edited_action"
    if not isinstance(action, dict) or not isinstance(action.get("args"), dict):
        raise invalid_field(where, 'must be {"name": ..., "args": {...}}')
    if action.get("name", question.tool_name) != question.tool_name:
        raise invalid_field(
            f"{where}.name",
            f"an edit changes the arguments of {question.tool_name!r}, not which tool runs",
        )
    args: dict[str, Any] = action["args"]
    return args
