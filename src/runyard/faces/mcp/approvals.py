"""A run's approvals as MCP elicitations, their answers as runyard's, and the result a client that
cannot be asked gets instead.

Each waiting confirmation becomes one form elicitation: its message, the tool and its
arguments; ``accept`` approves (unless the form's ``approved`` is set false), ``decline`` and
``cancel`` deny. A client that did not declare the elicitation capability gets a tool result
(not an error) naming each request id, the thread, and ``POST /v1/confirm/{requestId}``.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    TextContent,
)

from runyard.faces.face_runs import Answer
from runyard.protocol import ConfirmationRequestPayload

__all__ = ["ANSWER_SCHEMA", "answer_of", "elicitation", "question_text", "waiting_result"]

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {
            "type": "boolean",
            "title": "Approve",
            "description": "Let the tool run (declining the form denies it too).",
            "default": True,
        },
        "reason": {
            "type": "string",
            "title": "Reason",
            "description": "Why not, when denying (the agent reads it).",
        },
    },
}
"""The elicitation form: every field optional, so a bare ``accept`` approves."""


def question_text(question: ConfirmationRequestPayload) -> str:
    """What the user is asked: the confirmation's message, the tool and its arguments."""
    arguments = json.dumps(question.args, ensure_ascii=False, indent=2)
    return f"{question.message}\n\nTool: {question.tool_name}\nArguments: {arguments}"


def elicitation(question: ConfirmationRequestPayload) -> ElicitRequest:
    """The form elicitation that asks ``question``."""
    return ElicitRequest(
        params=ElicitRequestFormParams(
            message=question_text(question), requested_schema=ANSWER_SCHEMA
        )
    )


def answer_of(request_id: str, result: ElicitResult) -> Answer:
    """The runyard answer of the client's response to ``request_id``'s elicitation."""
    content = result.content or {}
    reason = content.get("reason")
    # Only a plain ``true`` (or no field) approves: a form value runyard cannot read denies.
    if result.action == "accept" and content.get("approved", True) is True:
        return Answer(request_id, {"approved": True})
    answer: dict[str, Any] = {"approved": False}
    if isinstance(reason, str) and reason:
        answer["reason"] = reason
    elif result.action != "accept":
        answer["reason"] = f"the user chose {result.action} in the MCP client"
    return Answer(request_id, answer)


def waiting_result(
    thread_id: str, run_id: str, waiting: list[ConfirmationRequestPayload]
) -> CallToolResult:
    """The tool result of a run that waits for approvals the client cannot be asked for."""
    lines = [f"The run waits for approval on thread {thread_id!r}:"]
    approvals = []
    for question in waiting:
        confirm = f"/v1/confirm/{question.request_id}"
        lines.append(
            f"- {question.tool_name} {json.dumps(question.args, ensure_ascii=False)} "
            f"({question.message}): request {question.request_id}, POST {confirm}"
        )
        approvals.append(
            {
                "requestId": question.request_id,
                "toolName": question.tool_name,
                "args": question.args,
                "message": question.message,
                "confirmUrl": confirm,
            }
        )
    lines.append(
        'Answer each with its POST and the body {"approved": true} (or '
        '{"approved": false, "reason": "..."}), with the same credentials; the run then goes on, '
        f"its events on GET /v1/events/{thread_id}. Call this tool again with this threadId "
        "once it has ended."
    )
    return CallToolResult(
        content=[TextContent(text="\n".join(lines))],
        structured_content={
            "threadId": thread_id,
            "runId": run_id,
            "status": "waiting_for_approval",
            "approvals": approvals,
        },
    )
