"""The wire events as gRPC ``StreamEvent``s: one mapping over the events the SSE stream sends.

Both transports read the thread's one event log, where every runtime event was mapped once
(``runyard.service.event_log.chunks``) to a wire event; this module only changes the encoding. So
the same run gives the same events on both: each ``StreamEvent`` names the log id
(``meta.event_id``, the SSE ``id:``) and the ``meta.wire_type`` it came from. A ``content``
event's blocks become typed ``ContentBlock``s (``content_blocks``); a completed run's structured
output also goes out as a ``content`` event, just before its ``COMPLETED`` status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import json_format, struct_pb2

from runyard.grpc.content_blocks import block_to_pb
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.protocol import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestEvent,
    ConfirmationRequestPayload,
    ContentEvent,
    ErrorEvent,
    FilesystemRequestEvent,
    ReasoningDeltaEvent,
    RunFinishEvent,
    RunResumedEvent,
    RunStartEvent,
    RunUsage,
    StatusEvent,
    TasksUpdateEvent,
    TextDeltaEvent,
    ThreadTitleUpdatedEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)

__all__ = [
    "FINISHED_STATES",
    "json_struct",
    "json_value",
    "pending_confirmation",
    "stream_events",
    "usage",
]

FINISHED_STATES = {
    "completed": pb.COMPLETED,
    "cancelled": pb.CANCELLED,
    "error": pb.FAILED,
}
"""The ``StatusEvent`` state of each way a run ends."""


def json_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(data)
    return struct


def json_value(data: Any) -> struct_pb2.Value:
    return json_format.ParseDict(data, struct_pb2.Value())


def usage(run: RunUsage | None) -> pb.Usage | None:
    if run is None:
        return None
    return pb.Usage(
        input_tokens=run.input_tokens,
        output_tokens=run.output_tokens,
        total_tokens=run.total_tokens,
        cost=run.cost,
    )


def pending_confirmation(payload: ConfirmationRequestPayload) -> pb.PendingConfirmation:
    return pb.PendingConfirmation(
        request_id=payload.request_id,
        tool_call_id=payload.tool_call_id,
        tool=payload.tool_name,
        args=json_struct(payload.args),
        message=payload.message,
        input_type=payload.input_type or "",
        severity=payload.severity,
    )


def stream_events(event: WireEvent) -> list[pb.StreamEvent]:
    """The ``StreamEvent``s of one wire event (``meta`` left for the stream to fill in)."""
    made = _MAPPING[type(event)](event)
    return [
        pb.StreamEvent(run_id=event.run_id, agent_id=event.agent_id, **fields)
        for fields in (made if isinstance(made, list) else [made])
    ]


Fields = dict[str, Any]


def _run_start(event: RunStartEvent) -> Fields:
    p = event.payload
    status = pb.StatusEvent(
        state=pb.RUNNING,
        message_id=p.message_id,
        catalog_agent_id=p.agent_id or "",
        version=p.version or "",
        rule_id=p.rule_id or "",
    )
    return {"status": status}


def _run_finish(event: RunFinishEvent) -> list[Fields]:
    p = event.payload
    state = FINISHED_STATES[p.status]
    status = pb.StatusEvent(state=state, reason=p.reason or "", usage=usage(p.usage))
    if p.output is None:
        return [{"status": status}]
    block = pb.ContentBlock(json=json_value(p.output))
    return [{"content": pb.ContentEvent(blocks=[block])}, {"status": status}]


def _content(event: ContentEvent) -> Fields:
    p = event.payload
    content = pb.ContentEvent(
        blocks=[block_to_pb(block) for block in p.blocks],
        message_id=p.message_id or "",
        tool_call_id=p.tool_call_id or "",
    )
    return {"content": content}


def _confirmation(event: ConfirmationRequestEvent) -> Fields:
    p = event.payload
    whole = json_struct(p.model_dump(mode="json", exclude_none=True))
    request = pb.ConfirmationRequestEvent(confirmation=pending_confirmation(p), payload=whole)
    return {"confirmation_request": request}


def _spawned(event: AgentSpawnedEvent) -> Fields:
    p = event.payload
    spawned = pb.AgentSpawnedEvent(
        parent_id=p.parent_id,
        role=p.role,
        tools=p.tools,
        title=p.title or "",
        goal=p.goal or "",
        payload=json_struct(p.model_dump(mode="json", exclude_none=True)),
    )
    return {"agent_spawned": spawned}


def _completed(event: AgentCompletedEvent) -> Fields:
    p = event.payload
    completed = pb.AgentCompletedEvent(
        role=p.role, result=p.result, error=p.error or "", status=p.outcome
    )
    return {"agent_completed": completed}


def _tasks(event: TasksUpdateEvent) -> Fields:
    tasks = [
        pb.Task(id=t.id, description=t.description, status=t.status, detail=t.detail or "")
        for t in event.payload.tasks
    ]
    return {"tasks_update": pb.TasksUpdateEvent(tasks=tasks)}


def _error(event: ErrorEvent) -> Fields:
    p = event.payload
    error = pb.ErrorEvent(
        message=p.content,
        code=p.code or "",
        status_code=p.status_code or 0,
        provider=p.provider or "",
    )
    return {"error": error}


def _filesystem(event: FilesystemRequestEvent) -> Fields:
    p = event.payload
    request = pb.FilesystemRequestEvent(
        request_id=p.request_id, operation=p.operation, args=json_struct(p.args)
    )
    return {"filesystem_request": request}


def _tool_call(event: ToolCallEvent) -> Fields:
    p = event.payload
    start = pb.ToolStartEvent(
        tool_call_id=p.tool_call_id, tool=p.tool_name, args=json_struct(p.args)
    )
    return {"tool_start": start}


def _tool_result(event: ToolResultEvent) -> Fields:
    p = event.payload
    return {"tool_end": pb.ToolEndEvent(tool_call_id=p.tool_call_id, result=json_value(p.result))}


def _tool_error(event: ToolErrorEvent) -> Fields:
    p = event.payload
    return {"tool_end": pb.ToolEndEvent(tool_call_id=p.tool_call_id, error=p.error)}


_MAPPING: dict[type[Any], Callable[[Any], Fields | list[Fields]]] = {
    RunStartEvent: _run_start,
    RunFinishEvent: _run_finish,
    TextDeltaEvent: lambda e: {"token": pb.TokenEvent(text=e.payload.text)},
    ContentEvent: _content,
    ReasoningDeltaEvent: lambda e: {"reasoning": pb.ReasoningEvent(text=e.payload.text)},
    ToolCallEvent: _tool_call,
    ToolResultEvent: _tool_result,
    ToolErrorEvent: _tool_error,
    AgentSpawnedEvent: _spawned,
    AgentCompletedEvent: _completed,
    ConfirmationRequestEvent: _confirmation,
    TasksUpdateEvent: _tasks,
    StatusEvent: lambda e: {"status_line": pb.StatusLineEvent(message=e.payload.message)},
    ErrorEvent: _error,
    ThreadTitleUpdatedEvent: lambda e: {"thread_title": pb.ThreadTitleEvent(title=e.payload.title)},
    FilesystemRequestEvent: _filesystem,
    RunResumedEvent: lambda e: {
        "run_resumed": pb.RunResumedEvent(after_event_id=e.payload.after_event_id)
    },
}
