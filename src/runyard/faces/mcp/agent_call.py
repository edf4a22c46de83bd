"""``call_agent``: one ``tools/call`` of an agent tool — a runyard run started on the thread (or,
on a 2026-07-28 client's retry, its approvals answered), followed to its end with progress
notifications, its approvals asked as elicitations, and its answer the tool result.

Approvals, by what the client can do:

- a handshake-era client (2025 protocol versions, a session) that declared elicitation is asked
  on the call's own stream (``elicitation/create``), and the run goes on in the same call;
- a 2026-07-28 client that declared it gets an ``InputRequiredResult`` with one elicitation per
  question and the thread as its ``requestState``; its retry of the call carries the answers,
  which go to the run, and the retried call follows it on;
- any other client gets ``waiting_result``: how to answer with ``POST /v1/confirm``.

A cancelled call (``notifications/cancelled``, a 2026-07-28 client closing its response, the
session's end) cancels the run, as the other faces do when their client goes away.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import anyio
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)

from runyard.faces.face_content import UserInput
from runyard.faces.face_events import going_away
from runyard.faces.face_runs import FaceRun, answer_run, start_run
from runyard.faces.mcp.agent_tools import AgentCallInput, InvalidArguments
from runyard.faces.mcp.approvals import (
    ANSWER_SCHEMA,
    answer_of,
    elicitation,
    question_text,
    waiting_result,
)
from runyard.faces.mcp.caller import McpCaller
from runyard.faces.mcp.content import mcp_content
from runyard.faces.mcp.progress import ProgressNotes
from runyard.ids import is_thread_id, new_id
from runyard.messages import ContentBlock
from runyard.protocol import ConfirmationRequestPayload, ContentEvent, RunFinishEvent
from runyard.service import ORCHESTRATOR_ID, FollowStopped, RunPause, ServiceError, follow_run

__all__ = ["AgentResult", "call_agent"]

AgentResult = CallToolResult | InputRequiredResult
"""What an agent tool call answers: its result, or (2026-07-28) the approvals to ask first."""


async def call_agent(
    ctx: ServerRequestContext[Any, Any],
    caller: McpCaller,
    agent_id: str,
    params: CallToolRequestParams,
) -> AgentResult:
    """Run ``agent_id`` for the call ``params`` and answer with its outcome; a run that cannot
    start (a bad argument, a busy thread, a limit) is an ``isError`` result naming why."""
    try:
        if params.input_responses is not None or params.request_state is not None:
            run = await _answered(caller, params)
        else:
            given = AgentCallInput.parse(params.arguments)
            thread_id = given.thread_id or new_id("mcp")
            said = UserInput(given.message, given.content, "content")
            run = await start_run(
                caller.parts, caller.owner, thread_id, said, agent_id, entry="mcp"
            )
    except InvalidArguments as exc:
        return _error(f"invalid arguments: {exc}", {"status": "invalid_arguments"})
    except ServiceError as exc:
        return _error(f"refused ({exc.code}): {exc}", {"status": exc.code})
    return await _AgentCall(ctx, caller).follow(run)


async def _answered(caller: McpCaller, params: CallToolRequestParams) -> FaceRun:
    """The run a retry's elicitation answers go to (``requestState``: its thread)."""
    thread_id = params.request_state
    if thread_id is None or not is_thread_id(thread_id):
        raise InvalidArguments("requestState: the threadId an InputRequiredResult gave")
    if not params.input_responses:
        raise InvalidArguments("inputResponses: the answers to the InputRequiredResult's requests")
    answers = []
    for request_id, response in params.input_responses.items():
        if not isinstance(response, ElicitResult):
            raise InvalidArguments(f"inputResponses.{request_id}: an elicitation result")
        answers.append(answer_of(request_id, response))
    return await answer_run(caller.parts, caller.owner, thread_id, answers)


class _AgentCall:
    """Follows one call's run, across its approvals, to the call's result."""

    def __init__(self, ctx: ServerRequestContext[Any, Any], caller: McpCaller) -> None:
        self.ctx = ctx
        self.caller = caller
        self.going_away = caller.going_away
        self.notes = ProgressNotes()
        self.sent = 0
        self.blocks: list[ContentBlock] = []
        """The content blocks the answer produced, for the result after its text."""

    async def follow(self, run: FaceRun) -> AgentResult:
        self.notes.answered(run.answered)
        try:
            while True:
                end = await self._until_paused(run)
                if isinstance(end, RunFinishEvent):
                    return self._finished(run, end)
                if end.status != "suspended":
                    return self._closed(run, end)
                waiting = await run.pending()
                if not waiting:  # answered elsewhere (/v1) since: follow on from here
                    run = replace(run, followed=replace(run.followed, cursor=end.event_id))
                    continue
                asked = await self._ask(run, waiting)
                if not isinstance(asked, list):
                    return asked
                parts, owner = self.caller.parts, self.caller.owner
                run = await answer_run(parts, owner, run.thread_id, asked)
        except FollowStopped as stopped:
            message = going_away(run.thread_id, stopped.last_event_id)
            return _error(message, self._about(run, "server_shutdown"))
        except ServiceError as exc:  # an answer the run refused (it expired, say)
            return _error(f"{exc.code}: {exc}", self._about(run, exc.code))
        except BaseException:
            # Cancelled: the client cancelled the call or went away. Shielded, for the
            # cancellation would cancel the cancel too.
            with anyio.CancelScope(shield=True):
                await run.cancel()
            raise

    async def _until_paused(self, run: FaceRun) -> RunFinishEvent | RunPause:
        """The run's ``run-finish``, or how it paused; progress notes on the way."""
        parts = run.parts
        end: RunFinishEvent | RunPause = RunPause(run.followed.cursor, "error", "no events")
        async for item in follow_run(parts.store, parts.events, run.followed, self.going_away):
            if isinstance(item, RunPause):
                end = item
            elif isinstance(item[1], RunFinishEvent):
                end = item[1]
            elif isinstance(item[1], ContentEvent) and item[1].agent_id == ORCHESTRATOR_ID:
                self.blocks.extend(item[1].payload.blocks)
            elif (note := self.notes.note(*item)) is not None:
                self.sent += 1
                await self.ctx.session.report_progress(self.sent, message=note)
        return end

    async def _ask(
        self, run: FaceRun, waiting: list[ConfirmationRequestPayload]
    ) -> list[Any] | AgentResult:
        """The answers to the waiting questions, or the call's result when the client is not
        asked here (or the server goes away while it is)."""
        session = self.ctx.session
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return waiting_result(run.thread_id, run.followed.run_id, waiting)
        if not session.can_send_request:
            return InputRequiredResult(
                input_requests={q.request_id: elicitation(q) for q in waiting},
                request_state=run.thread_id,
            )
        answers = []
        for question in waiting:
            result = await self._elicited(question)
            if result is None:
                return waiting_result(run.thread_id, run.followed.run_id, waiting)
            answers.append(answer_of(question.request_id, result))
        return answers

    async def _elicited(self, question: ConfirmationRequestPayload) -> ElicitResult | None:
        """The client's answer to ``question``; None when it refused the elicitation or the
        server went away first (the run waits on, for ``/v1``)."""
        result: ElicitResult | None = None
        async with anyio.create_task_group() as group:

            async def stop_when_going_away() -> None:
                await self.going_away.wait()
                group.cancel_scope.cancel()

            group.start_soon(stop_when_going_away)
            try:
                result = await self.ctx.session.elicit_form(
                    question_text(question), ANSWER_SCHEMA, related_request_id=self.ctx.request_id
                )
            except MCPError:
                result = None
            group.cancel_scope.cancel()
        return result

    def _finished(self, run: FaceRun, event: RunFinishEvent) -> CallToolResult:
        payload = event.payload
        about = self._about(run, payload.status)
        if payload.usage is not None:
            about["usage"] = payload.usage.model_dump(by_alias=True, exclude_none=True)
        if payload.status == "error":
            return _error(f"the run failed: {payload.reason or 'no reason given'}", about)
        if payload.status == "cancelled":
            return _error(f"the run was cancelled: {payload.reason or 'cancelled'}", about)
        if payload.output is not None:
            about["output"] = payload.output
        text = self.notes.answer or (json.dumps(payload.output) if payload.output else "")
        content = [TextContent(text=text), *mcp_content(self.blocks)]
        return CallToolResult(content=content, structured_content=about)

    def _closed(self, run: FaceRun, pause: RunPause) -> CallToolResult:
        """A run that ended without its ``run-finish`` (cancelled elsewhere, never started)."""
        reason = pause.reason or "the run ended unfinished"
        return _error(f"the run ended ({pause.status}): {reason}", self._about(run, pause.status))

    def _about(self, run: FaceRun, status: str) -> dict[str, Any]:
        return {"threadId": run.thread_id, "runId": run.followed.run_id, "status": status}


def _error(message: str, about: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(text=message)], structured_content=about, is_error=True
    )
