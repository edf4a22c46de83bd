"""``POST /ai-sdk/{agentId}``: the Vercel AI SDK's chat endpoint (``useChat``'s ``api``) over
runyard's runs.

The body is what ``useChat`` sends (``UseChatRequest``); the answer is the UI message stream
protocol (``x-vercel-ai-ui-message-stream: v1``): the run as one assistant message's chunks
(``UiMessageChunks``), then ``[DONE]``. A run that waits for approval ends the stream with
``tool-approval-request`` parts and ``finish``; the request ``useChat`` sends after
``addToolApprovalResponse`` answers them and streams the run on. A client that goes away
(``stop()``, an ``AbortController``) cancels the run. Errors before the stream starts are
runyard's JSON errors, which ``useChat`` reports as its ``error``.
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``router``.

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from runyard.faces.agent_path import AgentId
from runyard.faces.ai_sdk.chat_request import UseChatRequest
from runyard.faces.ai_sdk.chunks import UiMessageChunks
from runyard.faces.face_events import streamed
from runyard.faces.face_runs import answer_run, start_run
from runyard.faces.face_stream import FaceStream, stream_operation
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServiceParts

__all__ = ["UI_MESSAGE_STREAM_HEADER", "router"]

UI_MESSAGE_STREAM_HEADER = {"x-vercel-ai-ui-message-stream": "v1"}
"""Tells the AI SDK's transport which protocol the body speaks."""

_STREAM = (
    "The AI SDK UI message stream: Server-Sent Events, one chunk per `data:` frame (JSON: "
    "start, start-step, text-*, reasoning-*, tool-input-*, tool-approval-request, tool-output-*, "
    "data-agent, data-tasks, data-status, finish-step, finish, abort, error), and "
    "`data: [DONE]` last (docs/faces.md)"
)
_HEADERS = {
    "x-vercel-ai-ui-message-stream": {
        "description": "`v1`: the UI message stream protocol",
        "schema": {"type": "string", "const": "v1"},
    }
}


def router(wiring: FaceWiring) -> APIRouter:
    """The Vercel AI SDK face's routes."""
    api = APIRouter(prefix="/ai-sdk", tags=["faces"])
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]

    frame = "one UI message chunk (JSON), or `[DONE]`"

    @api.post("/{agent_id}", **stream_operation(wiring.errors, _STREAM, frame, _HEADERS))
    async def chat(
        agent_id: AgentId,
        body: UseChatRequest,
        request: Request,
        parts: parts_dep,
        owner: owner_dep,
    ) -> FaceStream:
        """Run the agent for the last user message on the chat ``id`` (or answer the tool
        approvals of the last assistant message and carry its run on), streaming the answer as
        UI message chunks."""
        if body.resumes():
            run = await answer_run(parts, owner, body.id, body.answers())
            message_id = None  # the client's last assistant message goes on
        else:
            run = await start_run(parts, owner, body.id, body.message(), agent_id, entry="ai-sdk")
            message_id = f"msg-{run.followed.run_id}"
        chunks = UiMessageChunks(body.id, run.followed.run_id, message_id, body.denied_calls())
        return streamed(run, chunks, wiring.stream(request), UI_MESSAGE_STREAM_HEADER)

    return api
