"""``POST /agui/{agentId}``: an AG-UI agent endpoint (``HttpAgent``'s ``url``) over runyard's runs.

The body is AG-UI's ``RunAgentInput``; the answer is the run as AG-UI events over SSE
(``AguiEvents``), ending with ``RUN_FINISHED`` or ``RUN_ERROR``. A run that waits for approval
ends the stream with ``RUN_FINISHED`` outcome ``interrupt``; the next request on the thread
answers it with ``resume`` and streams the run on. A client that goes away cancels the run.
Errors before the stream starts are runyard's JSON errors (``/v1`` statuses).
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``router``.

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from runyard.faces.agent_path import AgentId
from runyard.faces.agui.events import AguiEvents
from runyard.faces.agui.run_input import RunAgentInput
from runyard.faces.face_events import streamed
from runyard.faces.face_runs import answer_run, start_run
from runyard.faces.face_stream import FaceStream, stream_operation
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServiceParts

__all__ = ["router"]

_STREAM = (
    "Server-Sent Events, one AG-UI event per `data:` frame (JSON, camelCase): RUN_STARTED "
    "first, then the run's TEXT_MESSAGE_*, REASONING_*, TOOL_CALL_*, STEP_*, "
    "STATE_SNAPSHOT/STATE_DELTA and CUSTOM events, and RUN_FINISHED (outcome `interrupt` while "
    "an approval waits, `cancelled`) or RUN_ERROR last (docs/faces.md)"
)


def router(wiring: FaceWiring) -> APIRouter:
    """The AG-UI face's routes."""
    api = APIRouter(prefix="/agui", tags=["faces"])
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]

    @api.post("/{agent_id}", **stream_operation(wiring.errors, _STREAM, "one AG-UI event (JSON)"))
    async def run_agent(
        agent_id: AgentId,
        body: RunAgentInput,
        request: Request,
        parts: parts_dep,
        owner: owner_dep,
    ) -> FaceStream:
        """Run the agent for the last user message of ``messages`` on ``threadId`` (or answer
        the interrupts in ``resume`` and carry the suspended run on), streaming AG-UI events."""
        if body.resume:
            run = await answer_run(parts, owner, body.thread_id, body.answers())
        else:
            run = await start_run(
                parts, owner, body.thread_id, body.message(), agent_id, entry="agui"
            )
        events = AguiEvents(body.thread_id, body.run_id, run.followed.run_id)
        return streamed(run, events, wiring.stream(request))

    return api
