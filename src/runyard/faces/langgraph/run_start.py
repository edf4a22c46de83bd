"""``open_run``: the runyard run a LangGraph run request asks for — started from its input, or
carried on by ``command.resume`` — with LangGraph's ``multitask_strategy`` mapped onto runyard's
one open run per thread:

| strategy | the thread has an open run |
|---|---|
| ``reject`` (the default) | 409 ``run_active`` |
| ``enqueue`` | 409 ``run_active``: runyard keeps no queue of a thread's next inputs |
| ``interrupt`` | the open run is cancelled (what it did stays in the thread), then the new one starts |
| ``rollback`` | 422 (``RunCreate.refuse_unsupported``) |

``if_not_exists`` ``reject`` answers 404 for a thread the caller has not created; ``create``
(runyard's way) makes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from runyard.faces.face_runs import FaceRun, answer_run, pending_questions, start_run
from runyard.faces.langgraph.refusals import NotQueued
from runyard.faces.langgraph.resume import resume_answers
from runyard.faces.langgraph.run_request import RunCreate
from runyard.faces.langgraph.thread_state import folded, human
from runyard.faces.langgraph.thread_values import ThreadValues
from runyard.ids import new_id
from runyard.messages import AgentMessage
from runyard.service import Owner, ServiceParts, ThreadNotFound, Threads

__all__ = ["OpenedRun", "open_run", "stream_values"]

_RECENT = 20
"""How many of the thread's newest messages are looked through for its newest user message: a
run that has not said ``run-start`` yet has saved none after it, one that ended a few."""


@dataclass(frozen=True, slots=True)
class OpenedRun:
    """The run followed, and the thread's state folded up to where it is followed from."""

    run: FaceRun
    values: ThreadValues


async def open_run(parts: ServiceParts, owner: Owner, thread_id: str, body: RunCreate) -> OpenedRun:
    """Start or resume the run ``body`` asks for on the thread (errors as ``/v1``)."""
    body.refuse_unsupported()
    threads = Threads(parts.events, parts.store)
    if body.if_not_exists == "reject" or body.resumes():
        await threads.get(owner, thread_id)
    if body.resumes():
        waiting = await pending_questions(parts, owner.thread_key(thread_id))
        answers = resume_answers(body.command.resume if body.command else None, waiting)
        run = await answer_run(parts, owner, thread_id, answers)
        return OpenedRun(run, await stream_values(parts, owner, thread_id, run.followed.cursor))
    given = body.user_input()
    await _make_room(parts, owner, thread_id, body)
    message_id = body.message_id() or new_id("msg")
    agent, version = body.agent()
    run = await start_run(
        parts,
        owner,
        thread_id,
        given,
        agent,
        version,
        entry="langgraph",
        message_id=message_id,
    )
    return OpenedRun(run, await stream_values(parts, owner, thread_id, run.followed.cursor))


async def stream_values(
    parts: ServiceParts, owner: Owner, thread_id: str, cursor: int
) -> ThreadValues:
    """The thread's state folded up to log id ``cursor``, told: what a stream folds on from.

    It also knows the thread's newest user message. The fold knows the user message of each
    ``run-start`` it read, and a run followed as soon as it was started (its start stored its
    message) may not have said ``run-start`` yet when the log is read: its driver writes it a
    moment later, and the run may even have ended before its messages are read here."""
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    values, _ = await folded(parts, owner, thread, cursor)
    recent = await parts.store.get_messages(
        thread.id, tenant_id=owner.tenant_id, resource_id=owner.user_id, limit=_RECENT
    )
    asked = [m for m in recent if isinstance(m, AgentMessage) and m.role == "user"]
    if asked:
        values.users.setdefault(asked[-1].id, human(asked[-1]))
    values.settle()
    return values


async def _make_room(parts: ServiceParts, owner: Owner, thread_id: str, body: RunCreate) -> None:
    """Apply ``multitask_strategy`` to the thread's open run, if any."""
    try:
        status = await parts.runs.status(owner, thread_id)
    except ThreadNotFound:
        return  # a new thread: nothing runs on it
    if not (status.has_active_run or status.is_suspended):
        return
    if body.multitask_strategy == "interrupt":
        await parts.runs.cancel(owner, thread_id)
    elif body.multitask_strategy == "enqueue":
        raise NotQueued(thread_id)
    # reject: starting the run answers RunActive, as /v1 does
