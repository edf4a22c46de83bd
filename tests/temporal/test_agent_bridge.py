"""The Temporal bridge end to end: the real Temporal dev server, a real ``runyard serve`` on the
demo model, and a worker of ``runyard.temporal`` between them (one of each server per module)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from temporalio import activity
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import (
    ActivityInboundInterceptor,
    ActivityOutboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)
from temporal_harness import Runyard, runyard_serving, temporal_dev_server

from runyard.temporal import (
    AgentBridge,
    AgentConversation,
    AgentStepProgress,
    Approval,
    Conversation,
    ConversationResult,
    PendingConfirmation,
    StepOptions,
    agent_worker,
)

pytestmark = pytest.mark.slow

NOTE = '/tool save_note {"text": "buy milk"}'
# Quick retries, so a forced one costs little.
QUICK = StepOptions(first_retry_seconds=0.1, heartbeat_timeout_seconds=10)


@pytest.fixture(scope="module")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with temporal_dev_server(tmp_path_factory.mktemp("temporal")) as address:
        yield address


@pytest.fixture(scope="module")
def runyard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runyard]:
    with runyard_serving(tmp_path_factory.mktemp("runyard")) as served:
        yield served


class WorkerDied(Exception):
    """What the first attempt of a step meets once it heartbeated tokens (a worker crash)."""


@dataclass
class Heartbeats(Interceptor):
    """Records every heartbeat of the activities by attempt; with ``kill_first_attempt``, the
    first attempt of a step dies right after its first heartbeat that carries tokens."""

    kill_first_attempt: bool = False
    beats: list[tuple[int, AgentStepProgress]] = field(default_factory=list)

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Inbound(next, self)


class _Inbound(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, recorder: Heartbeats) -> None:
        super().__init__(next)
        self.recorder = recorder

    def init(self, outbound: ActivityOutboundInterceptor) -> None:
        super().init(_Outbound(outbound, self.recorder))

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        return await super().execute_activity(input)


class _Outbound(ActivityOutboundInterceptor):
    def __init__(self, next: ActivityOutboundInterceptor, recorder: Heartbeats) -> None:
        super().__init__(next)
        self.recorder = recorder

    def heartbeat(self, *details: Any) -> None:
        attempt = activity.info().attempt
        progress: AgentStepProgress = details[0]
        self.recorder.beats.append((attempt, progress))
        super().heartbeat(*details)
        if self.recorder.kill_first_attempt and attempt == 1 and progress.tokens:
            raise WorkerDied("the worker died mid-stream")


@asynccontextmanager
async def working(
    temporal_address: str, runyard: Runyard, heartbeats: Heartbeats | None = None
) -> AsyncIterator[tuple[Client, str]]:
    """A client of the dev server, and a worker of the bridge polling a task queue of its own."""
    client = await Client.connect(temporal_address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    async with grpc.aio.insecure_channel(runyard.grpc) as channel:
        bridge = AgentBridge(channel, heartbeat_seconds=0.1)
        interceptors = [heartbeats] if heartbeats else []
        async with agent_worker(client, bridge, task_queue=queue, interceptors=interceptors):
            yield client, queue


async def start(client: Client, queue: str, conversation: Conversation) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        AgentConversation.run,
        conversation,
        id=f"wf-{uuid.uuid4().hex[:8]}",
        task_queue=queue,
        result_type=ConversationResult,
    )


async def pending(handle: WorkflowHandle[Any, Any]) -> list[PendingConfirmation]:
    """The confirmations the workflow waits for, once it waits for any."""
    async with asyncio.timeout(60):
        while True:
            asked = await handle.query(
                AgentConversation.pending_confirmations, result_type=list[PendingConfirmation]
            )
            if asked:
                return asked
            await asyncio.sleep(0.05)


def thread_messages(runyard: Runyard, thread_id: str) -> list[dict[str, Any]]:
    reply = httpx.get(f"{runyard.http}/v1/threads/{thread_id}/messages")
    reply.raise_for_status()
    messages: list[dict[str, Any]] = reply.json()["messages"]
    return messages


async def test_the_workflow_waits_for_an_approval_signal_and_goes_on_after_confirm(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    heartbeats = Heartbeats()
    async with working(temporal_address, runyard, heartbeats) as (client, queue):
        handle = await start(client, queue, Conversation(thread, [NOTE], options=QUICK))
        asked = await pending(handle)
        await handle.signal(AgentConversation.approve, Approval(asked[0].request_id, True))
        result: ConversationResult = await handle.result()

    assert [(a.tool, a.args) for a in asked] == [("save_note", {"text": "buy milk"})]
    assert result.turns == 1
    last = result.last
    assert last is not None
    assert (last.status, last.pending_confirmations, last.error) == ("completed", [], "")
    assert "buy milk" in last.text
    assert last.usage.total_tokens > 0
    print([{k: v for k, v in m.items() if k != "agentTree"} for m in thread_messages(runyard, thread)])
