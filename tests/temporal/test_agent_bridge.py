"""The Temporal bridge end to end: the real Temporal dev server, a real ``runyard serve`` on the
demo model, and a worker of ``runyard.temporal`` between them (one of each server per module)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from temporal_harness import Runyard, runyard_serving, temporal_dev_server, worker_command
from temporalio import activity
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ActivityError, ApplicationError, RetryState
from temporalio.testing import ActivityEnvironment
from temporalio.worker import (
    ActivityInboundInterceptor,
    ActivityOutboundInterceptor,
    Interceptor,
    Worker,
)
from triage_workflow import Triage

from runyard.temporal import (
    AgentBridge,
    AgentConversation,
    AgentStepProgress,
    Approval,
    ConfirmInput,
    Conversation,
    ConversationResult,
    PendingConfirmation,
    StepOptions,
    agent_worker,
)

pytestmark = pytest.mark.slow

NOTE = '/tool save_note {"text": "buy milk"}'
TEST_SECONDS = 120
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
) -> AsyncIterator[tuple[Client, str, AgentBridge]]:
    """A client of the dev server, and a worker of a bridge (heartbeats every 100 ms) polling a
    task queue of its own."""
    client = await Client.connect(temporal_address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    async with grpc.aio.insecure_channel(runyard.grpc) as channel:
        bridge = AgentBridge(channel, heartbeat_seconds=0.1)
        interceptors = [heartbeats] if heartbeats else []
        async with agent_worker(client, bridge, task_queue=queue, interceptors=interceptors):
            # A workflow task that fails is retried for ever: fail the test instead of hanging.
            async with asyncio.timeout(TEST_SECONDS):
                yield client, queue, bridge


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


def thread_runs(runyard: Runyard, thread_id: str) -> tuple[list[str], set[str]]:
    """The thread's user messages, and the runs its messages came from."""
    reply = httpx.get(f"{runyard.http}/v1/threads/{thread_id}/messages")
    reply.raise_for_status()
    messages = reply.json()["messages"]
    said = [m["content"] for m in messages if m["role"] == "user"]
    return said, {m["runId"] for m in messages}


async def until(holds: Callable[[], bool]) -> None:
    """Wait for what another process does (a worker's heartbeat, a run ending)."""
    while True:
        if holds():
            return
        await asyncio.sleep(0.05)


def thread_status(runyard: Runyard, thread_id: str) -> dict[str, Any]:
    reply = httpx.get(f"{runyard.http}/v1/threads/{thread_id}/status")
    reply.raise_for_status()
    status: dict[str, Any] = reply.json()
    return status


async def test_the_workflow_waits_for_an_approval_signal_and_goes_on_after_confirm(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    async with working(temporal_address, runyard) as (client, queue, bridge):
        handle = await start(client, queue, Conversation(thread, [NOTE], options=QUICK))
        asked = await pending(handle)
        waiting = thread_status(runyard, thread)
        await handle.signal(AgentConversation.approve, Approval(asked[0].request_id, True))
        result: ConversationResult = await handle.result()
        still_asked = await handle.query(AgentConversation.pending_confirmations)
        # A confirm retried after its answer went through is done, not refused.
        again = ConfirmInput(asked[0].request_id, approved=False)
        await ActivityEnvironment().run(bridge.confirm, again)
        with pytest.raises(ApplicationError) as unknown:
            await ActivityEnvironment().run(bridge.confirm, ConfirmInput("cr_unknown", True))

    assert [(a.tool, a.args) for a in asked] == [("save_note", {"text": "buy milk"})]
    assert (waiting["isSuspended"], waiting["entry"]) == (True, "temporal")
    assert still_asked == []
    last = result.last
    assert last is not None
    assert (result.turns, last.status, last.pending_confirmations) == (1, "completed", [])
    assert last.text.startswith("save_note returned {")
    assert '"text": "buy milk"' in last.text
    assert last.usage.total_tokens > 0
    assert thread_runs(runyard, thread) == ([NOTE], {last.run_id})
    assert (unknown.value.type, unknown.value.non_retryable) == ("confirmation_not_found", True)


async def test_a_retried_step_follows_the_run_its_first_attempt_started(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    said = "/delay 40\nthe first attempt of this step dies while these words stream"
    heartbeats = Heartbeats(kill_first_attempt=True)
    async with working(temporal_address, runyard, heartbeats) as (client, queue, _):
        handle = await start(client, queue, Conversation(thread, [said], options=QUICK))
        result: ConversationResult = await handle.result()

    last = result.last
    assert last is not None
    assert last.status == "completed"
    assert last.text == 'You said: "the first attempt of this step dies while these words stream"'
    first = [p for attempt, p in heartbeats.beats if attempt == 1]
    second = [p for attempt, p in heartbeats.beats if attempt == 2]
    assert first[-1].tokens
    assert second, "the step was retried"
    # The retry went on from the first attempt's last heartbeat: its text, then the rest.
    assert second[0].text.startswith(first[-1].text)
    assert {p.run_id for p in first + second} - {""} == {last.run_id}
    assert thread_runs(runyard, thread) == ([said], {last.run_id})


async def test_cancelling_the_workflow_cancels_the_run(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    # Ten minutes of words: only a cancel ends this run within the test's time.
    said = "/delay 600\n" + " ".join(f"word{n}" for n in range(1000))
    heartbeats = Heartbeats()
    async with working(temporal_address, runyard, heartbeats) as (client, queue, _):
        handle = await start(client, queue, Conversation(thread, [said], options=QUICK))
        await until(lambda: any(p.run_id for _, p in heartbeats.beats))  # the run is going
        await handle.cancel()
        with pytest.raises(WorkflowFailureError):
            await handle.result()
        await until(lambda: not thread_status(runyard, thread)["hasActiveRun"])


async def test_heartbeats_carry_the_streamed_tokens_in_batches(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    said = "/delay 20\n" + " ".join(f"word{n}" for n in range(20))
    heartbeats = Heartbeats()
    async with working(temporal_address, runyard, heartbeats) as (client, queue, _):
        handle = await start(client, queue, Conversation(thread, [said], options=QUICK))
        result: ConversationResult = await handle.result()

    last = result.last
    assert last is not None
    beats = [p for _, p in heartbeats.beats]
    assert "".join(p.tokens for p in beats) == last.text
    for n, beat in enumerate(beats):
        assert beat.text == "".join(p.tokens for p in beats[: n + 1])
    # A heartbeat while the stream is still quiet knows no run yet.
    assert {p.run_id for p in beats} - {""} == {last.run_id}
    # Batched: fewer heartbeats carry tokens than there are words (one a word is what a
    # heartbeat per token would give; 20 ms a word against 100 ms a batch gives ~5 a batch).
    assert len([p for p in beats if p.tokens]) < len(last.text.split())


async def test_a_long_conversation_continues_as_new_and_keeps_its_turns(
    temporal_address: str, runyard: Runyard
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    conversation = Conversation(thread, ["one", "two"], turns_per_run=2, options=QUICK)
    async with working(temporal_address, runyard) as (client, queue, _):
        handle = await client.start_workflow(
            AgentConversation.run,
            conversation,
            id=f"wf-{uuid.uuid4().hex[:8]}",
            task_queue=queue,
            start_signal="add_message",
            start_signal_args=["three"],
        )
        result = await handle.result()
        description = await handle.describe()

    assert (result.turns, result.continued_as_new) == (3, 1)
    assert result.last.text == 'You said: "three"'
    assert description.run_id != handle.first_execution_run_id
    said, runs = thread_runs(runyard, thread)
    assert (said, len(runs)) == (["one", "two", "three"], 3)


async def test_bad_input_fails_the_step_at_once_instead_of_retrying(
    temporal_address: str, runyard: Runyard
) -> None:
    async with working(temporal_address, runyard) as (client, queue, _):
        handle = await start(client, queue, Conversation("not a thread id", ["hi"]))
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()

    step = failed.value.cause
    assert isinstance(step, ActivityError)
    assert step.retry_state == RetryState.NON_RETRYABLE_FAILURE
    refusal = step.cause
    assert isinstance(refusal, ApplicationError)
    assert refusal.type == "invalid_thread_id"
    assert "thread_id" in refusal.message


async def test_a_workflow_of_ones_own_runs_the_step_in_the_default_sandbox(
    temporal_address: str, runyard: Runyard
) -> None:
    client = await Client.connect(temporal_address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    async with grpc.aio.insecure_channel(runyard.grpc) as channel:
        bridge = AgentBridge(channel)
        async with Worker(
            client, task_queue=queue, workflows=[Triage], activities=bridge.activities
        ):
            run = client.execute_workflow(
                Triage.run, "printer on fire", id=f"wf-{uuid.uuid4().hex[:8]}", task_queue=queue
            )
            text = await asyncio.wait_for(run, TEST_SECONDS)

    assert text == 'You said: "Triage this ticket: printer on fire"'


async def test_the_worker_command_runs_a_conversation(
    temporal_address: str, runyard: Runyard, tmp_path: Path
) -> None:
    queue = f"q-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    with worker_command(temporal_address, runyard, queue, log) as worker:
        client = await Client.connect(temporal_address)
        thread = f"t-{uuid.uuid4().hex[:8]}"
        handle = await start(client, queue, Conversation(thread, ["hello"]))
        result = await asyncio.wait_for(handle.result(), TEST_SECONDS)
        worker.terminate()
        code = await asyncio.to_thread(worker.wait, 30)

    assert result.last.text == 'You said: "hello"'
    assert code == 0, log.read_text()
    assert f"task queue {queue}, runyard gRPC {runyard.grpc}" in log.read_text()
