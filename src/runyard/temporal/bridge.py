"""``AgentBridge``: the Temporal activities that run runyard agents through the gRPC surface.

- ``runyard.agent_step`` streams one step of a run (``Stream``) to its end or its first
  suspension and returns an ``AgentStepOutput``. While it streams it heartbeats every
  ``heartbeat_seconds`` with an ``AgentStepProgress``: the orchestrator's tokens since the last
  heartbeat, batched, and how far the step got. A retried attempt sends the same request with
  the same ``idempotency_key`` and ``after_event_id`` from the last heartbeat: it follows the run
  the first attempt started, from where that one stopped, and never starts a second run.
- ``runyard.confirm`` answers a confirmation request (``Confirm``).
- A step cancelled by its workflow (the workflow was cancelled, or gave up on the step) cancels
  the run too (``Cancel``); a worker shutting down leaves the run going, for the retry to follow.

The bridge never decides retries or timeouts: a refused call fails the activity (``failures``)
and the workflow's retry policy and timeouts decide what happens next.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from contextlib import aclosing
from typing import Any

import grpc
from google.protobuf import struct_pb2
from temporalio import activity
from temporalio.converter import value_to_type

from runyard.grpc import ENTRY_METADATA
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.temporal.failures import call_failure, error_code
from runyard.temporal.progress import StepProgress
from runyard.temporal.step import (
    AGENT_STEP,
    CONFIRM,
    AgentStepInput,
    AgentStepOutput,
    AgentStepProgress,
    ConfirmInput,
)
from runyard.temporal.ticks import with_ticks

__all__ = ["DEFAULT_HEARTBEAT_SECONDS", "AgentBridge"]

DEFAULT_HEARTBEAT_SECONDS = 0.2
"""How long tokens gather before a heartbeat carries them (the seed asks for 100 to 250 ms)."""

_CANCEL_SECONDS = 5.0


class AgentBridge:
    """The activities, over one gRPC ``channel`` to runyard; ``metadata`` goes with every call
    (``authorization: Bearer <key>`` with ``RUNYARD_AUTH=keys``)."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        *,
        metadata: Sequence[tuple[str, str]] = (),
        heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS,
    ) -> None:
        if heartbeat_seconds <= 0:
            raise ValueError(f"heartbeat_seconds must be > 0, not {heartbeat_seconds}")
        self._runs = pb_grpc.InferenceServiceStub(channel)  # type: ignore[no-untyped-call]
        # The runs it starts say they came in through Temporal (their entry, /status).
        self._metadata = (*metadata, (ENTRY_METADATA, "temporal"))
        self.heartbeat_seconds = heartbeat_seconds

    @property
    def activities(self) -> list[Callable[..., Any]]:
        """What a worker registers (``Worker(..., activities=bridge.activities)``)."""
        return [self.agent_step, self.confirm]

    @activity.defn(name=AGENT_STEP)
    async def agent_step(self, step: AgentStepInput) -> AgentStepOutput:
        """Stream the step to the run's end or first suspension, heartbeating its progress."""
        progress = StepProgress(step.thread_id, _last_heartbeat())
        call = self._runs.Stream(_request(step, progress.last_event_id), metadata=self._metadata)
        try:
            await self._follow(call, progress)
        except grpc.aio.AioRpcError as exc:
            raise call_failure(exc) from exc
        except asyncio.CancelledError:
            if not activity.is_worker_shutdown():
                await self._cancel_run(step.thread_id)
            raise
        finally:
            call.cancel()
        if progress.has_unsent_tokens:
            activity.heartbeat(progress.beat())
        return progress.output()

    async def _follow(self, call: Any, progress: StepProgress) -> None:
        beaten = time.monotonic()
        async with aclosing(with_ticks(aiter(call), self.heartbeat_seconds)) as items:
            async for event in items:
                if event is not None:
                    progress.add(event)
                if time.monotonic() - beaten >= self.heartbeat_seconds:
                    activity.heartbeat(progress.beat())
                    beaten = time.monotonic()

    async def _cancel_run(self, thread_id: str) -> None:
        """Cancel the thread's run: nobody waits for it any more. Best effort, and brief: the
        activity is already cancelled, and a run left going ends by its own limits."""
        try:
            async with asyncio.timeout(_CANCEL_SECONDS):
                await self._runs.Cancel(
                    pb.CancelRequest(thread_id=thread_id), metadata=self._metadata
                )
        except (grpc.aio.AioRpcError, TimeoutError):
            activity.logger.warning("could not cancel the run of thread %s", thread_id)

    @activity.defn(name=CONFIRM)
    async def confirm(self, answer: ConfirmInput) -> None:
        """Answer the confirmation request. One already answered (by an earlier attempt, or by
        a person elsewhere) counts as done: the run goes on with that answer."""
        given = struct_pb2.Struct()
        given.update({"approved": answer.approved})
        if answer.reason:
            given.update({"reason": answer.reason})
        request = pb.ConfirmRequest(request_id=answer.request_id, answer=given)
        try:
            await self._runs.Confirm(request, metadata=self._metadata)
        except grpc.aio.AioRpcError as exc:
            if error_code(exc) != "confirmation_answered":
                raise call_failure(exc) from exc


def _last_heartbeat() -> AgentStepProgress | None:
    """The progress an earlier attempt of this activity heartbeated last, if any."""
    details = activity.info().heartbeat_details
    if not details:
        return None
    progress: AgentStepProgress = value_to_type(AgentStepProgress, details[0])
    return progress


def _request(step: AgentStepInput, after_event_id: int) -> pb.InvokeRequest:
    context = step.context
    request = pb.InvokeRequest(
        thread_id=step.thread_id,
        message=step.message,
        idempotency_key=step.idempotency_key,
        after_event_id=max(step.after_event_id, after_event_id),
        context=pb.InvocationContext(
            user_role=context.user_role,
            ui_page=context.ui_page,
            flags=context.flags,
            metadata=context.metadata,
        ),
    )
    if step.agent_id is not None:
        request.agent_id = step.agent_id
    return request
