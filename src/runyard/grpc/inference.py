"""``InferenceService``: Invoke, Stream, ListAgents, Confirm and Cancel over the service's runs.

Invoke and Stream read the same events (``run_calls`` chooses the run, the service's
``follow_run`` reads it, ``events`` maps it): Stream writes them through a bounded buffer
(``stream_buffer``), Invoke folds them into one ``InvokeResponse``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
from google.protobuf import json_format

from runyard.grpc.agents import agent_infos
from runyard.grpc.auth import call_owner
from runyard.grpc.events import stream_events
from runyard.grpc.invoke_result import InvokeResult
from runyard.grpc.run_calls import call_entry, follow_call, required
from runyard.grpc.serving import GrpcState
from runyard.grpc.status import CallError, Refusals
from runyard.grpc.stream_buffer import write_buffered
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.protocol import WireEvent
from runyard.service import (
    FollowedRun,
    FollowStopped,
    Owner,
    RunEntry,
    RunPause,
    ServiceParts,
    follow_run,
)

__all__ = ["InferenceServicer"]

_PAUSED = {"suspended": pb.SUSPENDED, "cancelled": pb.CANCELLED, "error": pb.FAILED}


class InferenceServicer:
    """The methods of ``runyard.v1.InferenceService``, each behind the error table."""

    def __init__(self, state: GrpcState) -> None:
        self.state = state
        guard = Refusals(state.redactor)
        self.Invoke = guard.unary(self._invoke)
        self.Stream = guard.unary(self._stream)
        self.ListAgents = guard.unary(self._list_agents)
        self.Confirm = guard.unary(self._confirm)
        self.Cancel = guard.unary(self._cancel)

    async def _call(self, context: grpc.aio.ServicerContext) -> tuple[ServiceParts, Owner]:
        parts = self.state.ready()
        owner = await call_owner(
            self.state.settings, parts.store, context.invocation_metadata() or ()
        )
        return parts, owner

    async def _invoke(
        self, request: pb.InvokeRequest, context: grpc.aio.ServicerContext
    ) -> pb.InvokeResponse:
        parts, owner = await self._call(context)
        run = await follow_call(parts, owner, request, _entry(context))
        result = InvokeResult(run.run_id, request.thread_id)
        async for event in self._events(parts, run, request.thread_id):
            result.add(event)
        return await result.response_with_messages(parts.store, owner, run.thread_key)

    async def _stream(self, request: pb.InvokeRequest, context: grpc.aio.ServicerContext) -> None:
        parts, owner = await self._call(context)
        run = await follow_call(parts, owner, request, _entry(context))
        events = self._events(parts, run, request.thread_id)
        with self.state.metrics.stream_open("grpc"):
            await write_buffered(context, events, self.state.limits, self.state.stats)

    async def _events(
        self, parts: ServiceParts, run: FollowedRun, stream_id: str
    ) -> AsyncIterator[pb.StreamEvent]:
        """The run's events as ``StreamEvent``s, ``meta`` filled in."""
        index = 0
        async for item in _followed(parts, run, self.state.stopping):
            if isinstance(item, RunPause):
                status = pb.StatusEvent(state=_PAUSED[item.status], reason=item.reason or "")
                made = [pb.StreamEvent(run_id=run.run_id, status=status)]
                event_id, wire_type = item.event_id, ""
            else:
                event_id, wire = item
                made, wire_type = stream_events(wire), wire.type
            for event in made:
                index += 1
                event.meta.CopyFrom(
                    pb.StreamEventMeta(
                        stream_id=stream_id,
                        event_index=index,
                        event_id=event_id,
                        wire_type=wire_type,
                    )
                )
                yield event

    async def _list_agents(
        self, request: pb.ListAgentsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListAgentsResponse:
        parts, owner = await self._call(context)
        served = parts.agents.served(owner.tenant_id)
        infos = agent_infos(served, request, parts.runs.tenant_limits)
        return pb.ListAgentsResponse(agents=infos)

    async def _confirm(
        self, request: pb.ConfirmRequest, context: grpc.aio.ServicerContext
    ) -> pb.ConfirmResponse:
        parts, owner = await self._call(context)
        required(request.request_id, "request_id")
        answer = json_format.MessageToDict(request.answer)
        if not isinstance(answer.get("approved"), bool):
            raise CallError(
                "INVALID_ARGUMENT",
                "invalid_request",
                'must be a boolean: {"approved": true} or {"approved": false, "reason": "…"}',
                field="answer.approved",
            )
        await parts.runs.confirm(owner, request.request_id, answer)
        return pb.ConfirmResponse()

    async def _cancel(
        self, request: pb.CancelRequest, context: grpc.aio.ServicerContext
    ) -> pb.CancelResponse:
        parts, owner = await self._call(context)
        required(request.thread_id, "thread_id")
        return pb.CancelResponse(cancelled=await parts.runs.cancel(owner, request.thread_id))


async def _followed(
    parts: ServiceParts, run: FollowedRun, stopping: asyncio.Event
) -> AsyncIterator[tuple[int, WireEvent] | RunPause]:
    """``follow_run``, its stop as the ``UNAVAILABLE`` that says where to resume."""
    try:
        async for item in follow_run(parts.store, parts.events, run, stopping):
            yield item
    except FollowStopped as stopped:
        raise CallError(
            "UNAVAILABLE",
            "server_shutdown",
            "the server is going away; call again (on any replica) with "
            f"after_event_id={stopped.last_event_id}",
        ) from None


def _entry(context: grpc.aio.ServicerContext) -> RunEntry:
    return call_entry(context.invocation_metadata() or ())
