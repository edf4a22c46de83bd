"""``resume_answers``: ``command.resume`` as the answers to runyard's waiting questions.

A value answers the one waiting question; with several waiting, resume with
``{interrupt_id: value}`` (LangGraph's map of interrupt ids), or with one
``{"decisions": [...]}`` holding a decision per question, in order. A value is any of:

| resume value | runyard answer |
|---|---|
| ``true`` / ``false``, ``"approve"`` / ``"reject"`` | ``{"approved": true}`` / ``{"approved": false}`` |
| ``{"decisions": [{"type": "approve"}]}`` (LangChain's ``HumanInTheLoopMiddleware``) | ``{"approved": true}`` |
| ``{"type": "reject", "message": "why"}`` | ``{"approved": false, "reason": "why"}`` |
| ``{"type": "respond", "message": "text"}``, or a string, for a question asking for text | ``{"approved": true, "userInput": "text"}`` |
| ``{"approved": ..., ...}`` | as ``POST /v1/confirm`` takes it, passed on |

``{"type": "edit", ...}`` is refused (422): a runyard tool's approval runs or denies the call the
model made, it cannot change its arguments. Anything else is 422 naming ``command.resume``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.faces.face_runs import Answer
from runyard.faces.invalid_body import invalid_field
from runyard.protocol import ConfirmationRequestPayload

__all__ = ["resume_answers"]

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
    asks_text = (question.input_type or "approval") == "text"
    if isinstance(value, bool):
        return {"approved": value}
    if isinstance(value, str):
        if asks_text:
            return {"approved": True, "userInput": value}
        if value in ("approve", "reject"):
            return {"approved": value == "approve"}
        raise invalid_field(path, "must be `approve`, `reject`, a boolean or a decision")
    if not isinstance(value, dict):
        raise invalid_field(path, "must be a boolean, a string or a decision object")
    if isinstance(value.get("approved"), bool):
        return value
    decisions = value.get("decisions")
    if isinstance(decisions, list):
        if len(decisions) != 1:
            raise invalid_field(f"{path}.decisions", "must hold one decision per interrupt")
        return _decided(question, decisions[0], f"{path}.decisions.0")
    return _decision(value, asks_text, path)


def _decision(value: dict[str, Any], asks_text: bool, path: str) -> dict[str, Any]:
    kind, message = value.get("type"), value.get("message")
    if message is not None and not isinstance(message, str):
        raise invalid_field(f"{path}.message", "must be a string")
    if kind == "approve":
        return {"approved": True}
    if kind == "reject":
        return {"approved": False, **({"reason": message} if message else {})}
    if kind == "respond" and asks_text and message:
        return {"approved": True, "userInput": message}
    if kind == "edit":
        raise invalid_field(
            f"{path}.type",
            "`edit` is refused: a runyard approval runs or denies the call as the model made "
            "it; it cannot change the arguments (reject with a message saying what to do "
            "instead)",
        )
    raise invalid_field(f"{path}.type", "must be `approve`, `reject` or (for text) `respond`")
