"""The run a streaming face answers with: started from the user's message, or carried on by
answering its confirmations — the same ``RunManager`` calls ``/v1`` makes, followed with the
service's ``follow_run`` from the thread's log position just before, so nothing is missed.

A face only maps the events it reads; how a run is chosen, answered, cancelled and asked about
lives here, once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runyard.faces.face_content import UserInput
from runyard.protocol import ConfirmationRequestPayload
from runyard.service import (
    ConfirmationNotFound,
    FollowedRun,
    Owner,
    RunBusy,
    RunEntry,
    ServiceError,
    ServiceParts,
    is_filesystem_request,
)

__all__ = ["Answer", "FaceRun", "answer_run", "pending_questions", "start_run"]

_BUSY_RETRY_SECONDS = 0.05
_BUSY_PATIENCE_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer to one confirmation request (``{"approved": bool, ...}``)."""

    request_id: str
    answer: dict[str, Any]


@dataclass(frozen=True, slots=True)
class FaceRun:
    """A run a face follows for its caller, and what the face may ask about it."""

    parts: ServiceParts
    owner: Owner
    thread_id: str
    followed: FollowedRun
    answered: tuple[ConfirmationRequestPayload, ...] = ()
    """The questions answered to resume it (``answer_run``): what was asked, of which calls."""

    async def pending(self) -> list[ConfirmationRequestPayload]:
        """The thread's questions still waiting for a person's answer (``pending_questions``)."""
        return await pending_questions(self.parts, self.followed.thread_key)

    async def cancel(self) -> None:
        """Cancel the run, as ``POST /v1/chat/{threadId}/cancel`` does (the client went away)."""
        # RunBusy: a confirm crossed the cancel, and the run goes on, as it would for /v1.
        with contextlib.suppress(ServiceError):
            await self.parts.runs.cancel(self.owner, self.thread_id)


async def pending_questions(
    parts: ServiceParts, thread_key: str
) -> list[ConfirmationRequestPayload]:
    """The questions of the thread stored under ``thread_key`` still waiting for a person's
    answer, oldest first (a ``filesystem-request`` waits for the client's machine, not for the
    face's user)."""
    waiting = await parts.store.list_pending_confirmations(thread_key)
    questions = [ConfirmationRequestPayload.model_validate(c.payload) for c in waiting]
    return [question for question in questions if not is_filesystem_request(question)]


async def start_run(
    parts: ServiceParts,
    owner: Owner,
    thread_id: str,
    message: str | UserInput,
    agent_id: str,
    version: str | None = None,
    *,
    entry: RunEntry,
    message_id: str | None = None,
) -> FaceRun:
    """Start a run of ``agent_id`` (at ``version``, None: the one served) for ``message`` (its
    text, or text and content blocks) on the thread (errors as ``/v1/chat``); ``entry`` names
    the face, ``message_id`` the user message (None: a new id)."""
    given = message if isinstance(message, UserInput) else UserInput(message)
    key = owner.thread_key(thread_id)
    cursor = await parts.store.last_event_id(key)
    run_id = await parts.runs.start(
        owner,
        thread_id,
        given.text,
        agent=agent_id,
        version=version,
        content=given.content,
        content_field=given.field,
        entry=entry,
        message_id=message_id,
    )
    return FaceRun(parts, owner, thread_id, FollowedRun(key, run_id, cursor))


async def answer_run(
    parts: ServiceParts, owner: Owner, thread_id: str, answers: Sequence[Answer]
) -> FaceRun:
    """Answer confirmation requests of the thread's suspended run, in order, and follow it on.

    A request of another thread (or another user) is ``ConfirmationNotFound``; errors otherwise
    as ``POST /v1/confirm``.
    """
    key = owner.thread_key(thread_id)
    cursor = await parts.store.last_event_id(key)
    run_id, answered = "", []
    for given in answers:
        record = await parts.store.get_confirmation(given.request_id)
        if record is None or record.thread_id != key:
            raise ConfirmationNotFound(given.request_id)
        await _confirm(parts, owner, given)
        run_id = record.run_id
        answered.append(ConfirmationRequestPayload.model_validate(record.payload))
    followed = FollowedRun(key, run_id, cursor)
    return FaceRun(parts, owner, thread_id, followed, tuple(answered))


async def _confirm(parts: ServiceParts, owner: Owner, given: Answer) -> None:
    """One answer; the run resumes after each, and stays suspended while questions are left,
    so the next answer waits (briefly) for it to be waiting again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _BUSY_PATIENCE_SECONDS
    while True:
        try:
            await parts.runs.confirm(owner, given.request_id, given.answer)
            return
        except RunBusy:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(_BUSY_RETRY_SECONDS)
