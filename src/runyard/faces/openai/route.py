"""``/openai/v1``: the OpenAI-compatible face (``openai.OpenAI(base_url=".../openai/v1")``).

``GET /models`` lists the caller's agents; ``POST /chat/completions`` runs one (``model``) for
the last user message, streamed as ``chat.completion.chunk`` frames or answered as one
``chat.completion`` — both made by ``CompletionChunks``. Without a named thread (the
``X-Runyard-Thread`` header, else ``user``) the run gets a new thread holding the earlier
messages; with one, the thread's memory is the conversation. ``x_runyard.answers`` answers the
approvals the thread's run waits for and carries it on. A client that goes away cancels the run.
Every error is OpenAI's envelope (``openai_error``, hooked in by the app for this prefix).
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``router``.

import asyncio
import time
from contextlib import aclosing
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from starlette.responses import Response

from runyard.faces.face_answer import FaceAnswer
from runyard.faces.face_events import face_values, streamed
from runyard.faces.face_runs import FaceRun, answer_run, start_run
from runyard.faces.invalid_body import invalid_field
from runyard.faces.openai.chat_request import ChatCompletionRequest
from runyard.faces.openai.chunks import CompletionChunks
from runyard.faces.openai.completion import completion
from runyard.faces.openai.conversation import start_conversation
from runyard.faces.openai.error_envelope import OpenAIErrorBody, openai_error_responses
from runyard.faces.openai.schemas import ChatCompletion, ModelCard, ModelList
from runyard.faces.wiring import FaceWiring
from runyard.ids import THREAD_ID_PATTERN
from runyard.service import Owner, ServiceParts

__all__ = ["PREFIX", "THREAD_HEADER", "router"]

PREFIX = "/openai/v1"
"""Where the face is mounted: the ``base_url`` of an ``openai`` client."""
THREAD_HEADER = "X-Runyard-Thread"
"""Names the runyard thread of a request, and says which one a response used."""
RUN_HEADER = "X-Runyard-Run"
"""Says which run a response follows."""

_STREAM = (
    "with `stream: true`: Server-Sent Events, one `chat.completion.chunk` (JSON) per `data:` "
    'frame — or `{"error": ...}` when the run fails —, then `data: [DONE]` (docs/faces.md)'
)
_FRAME = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "data": {
            "type": "string",
            "description": 'one `chat.completion.chunk` or `{"error": ...}` (JSON), or `[DONE]`',
        }
    },
}
"""One frame of the stream (what ``schema`` describes for ``text/event-stream``)."""
_HEADERS = {
    THREAD_HEADER: {
        "description": "the thread the run is on: follow it on /v1/events/{threadId}",
        "schema": {"type": "string"},
    },
    RUN_HEADER: {"description": "the run answered", "schema": {"type": "string"}},
}
_SERVER_ERRORS: dict[int | str, dict[str, Any]] = {
    500: {"model": OpenAIErrorBody, "description": "a bug: an exception nobody mapped"},
    502: {
        "model": OpenAIErrorBody,
        "description": "without `stream`: the run failed (its model, a limit; `run_failed`)",
    },
}
_NOT_READY: dict[int | str, dict[str, Any]] = {
    503: {
        "model": OpenAIErrorBody,
        "description": "the service is starting or stopping (`not_ready`), the database failed "
        "(`storage_unavailable`), or, without `stream`, the server went away before the run "
        "ended (`server_going_away`: it carries on, on /v1/events/{threadId})",
    }
}

ThreadHeader = Annotated[
    str | None,
    Header(
        alias=THREAD_HEADER,
        pattern=THREAD_ID_PATTERN,
        description="the runyard thread to use (its memory); wins over `user`",
    ),
]


def router(wiring: FaceWiring) -> APIRouter:
    """The OpenAI-compatible face's routes."""
    api = APIRouter(prefix=PREFIX, tags=["faces"])
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    caller = openai_error_responses(wiring.errors, 400, 401)
    errors = openai_error_responses(wiring.errors, 400, 401, 404, 409, 410, 422, 429)
    too_large = wiring.errors(413)  # refused before routing: runyard's own body

    @api.get(
        "/models",
        responses={200: {"model": ModelList}, **caller, **_NOT_READY, 500: _SERVER_ERRORS[500]},
    )
    async def models(parts: parts_dep, owner: owner_dep) -> ModelList:
        """The caller's agents (per tenant, as ``GET /v1/agents`` lists them), as models."""
        return ModelList(data=[ModelCard.of(a) for a in parts.agents.served(owner.tenant_id)])

    completions: dict[int | str, dict[str, Any]] = {
        200: {
            "model": ChatCompletion,
            "description": "without `stream`: the completion; " + _STREAM,
            "content": {"text/event-stream": {"schema": _FRAME}},
            "headers": _HEADERS,
        },
        **errors,
        **too_large,
        **_SERVER_ERRORS,
        **_NOT_READY,
    }

    @api.post("/chat/completions", response_model=None, responses=completions)
    async def chat_completions(
        body: ChatCompletionRequest,
        request: Request,
        parts: parts_dep,
        owner: owner_dep,
        thread: ThreadHeader = None,
    ) -> Response:
        """Run the agent ``model`` for the last user message (or answer the approvals of
        ``x_runyard.answers``), answering as OpenAI's Chat Completions API does."""
        run = await _run(parts, owner, body, thread or body.user)
        run_id = run.followed.run_id
        chunks = CompletionChunks(
            f"chatcmpl-{run_id}",
            body.model,
            int(time.time()),
            {"threadId": run.thread_id, "runId": run_id},
            include_usage=body.include_usage() or not body.stream,
        )
        headers = {THREAD_HEADER: run.thread_id, RUN_HEADER: run_id}
        if body.stream:
            return streamed(run, chunks, wiring.stream(request), headers)

        async def answer(going_away: asyncio.Event) -> tuple[int, Any]:
            async with aclosing(face_values(run, chunks, going_away)) as batches:
                return completion([value async for batch in batches for value in batch])

        return FaceAnswer(answer, wiring.stream(request), run.cancel, headers)

    return api


async def _run(
    parts: ServiceParts, owner: Owner, body: ChatCompletionRequest, thread_id: str | None
) -> FaceRun:
    """The run the request asks for: answered, started on its thread, or on a new one."""
    if answers := body.answers():
        if thread_id is None:
            raise invalid_field(
                "x_runyard.answers", f"name the run's thread ({THREAD_HEADER} or `user`)"
            )
        return await answer_run(parts, owner, thread_id, answers)
    if thread_id is not None:
        return await start_run(
            parts, owner, thread_id, body.user_input(), *body.agent(), entry="openai"
        )
    return await start_conversation(parts, owner, body.user_input(), body.history(), body.agent())
