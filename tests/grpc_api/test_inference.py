"""InferenceService end to end on a loopback port, with the generated client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2
from grpc_harness import ALICE, grpc_served, kinds, read_rest, streamed

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.protocol import parse_event
from sqlite_databases import MigratedSqlite

NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_invoke_answers_with_the_runs_text_messages_and_usage(url: str) -> None:
    async with grpc_served(url) as served:
        reply = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message="hello"), metadata=ALICE
        )

    assert reply.status == "completed"
    assert reply.run_id.startswith("run_")
    assert reply.text == 'You said: "hello"'
    assert [(m.role, m.text) for m in reply.messages] == [
        ("user", "hello"),
        ("assistant", 'You said: "hello"'),
    ]
    assert reply.usage.total_tokens > 0
    assert not reply.HasField("error")


async def test_stream_sends_the_sse_events_of_the_run_in_order(url: str) -> None:
    async with grpc_served(url) as served:
        events = await streamed(served, pb.InvokeRequest(thread_id="t1", message="hello"))
        key = "acme/alice/t1"
        logged = await served.parts.events.read(key)

    wire = [parse_event(e.json) for e in logged]
    assert [(e.meta.event_id, e.meta.wire_type) for e in events] == [
        (e.id, w.type) for e, w in zip(logged, wire, strict=True)
    ]
    assert [e.meta.event_index for e in events] == list(range(1, len(events) + 1))
    assert {e.meta.stream_id for e in events} == {"t1"}
    assert kinds(events)[0] == "status"
    assert events[0].status.state == pb.RUNNING
    assert events[-1].status.state == pb.COMPLETED
    tokens = "".join(e.token.text for e in events if e.WhichOneof("event") == "token")
    assert tokens == 'You said: "hello"'


async def test_a_confirmation_suspends_the_stream_and_confirm_lets_it_go_on(url: str) -> None:
    async with grpc_served(url) as served:
        first = await streamed(served, pb.InvokeRequest(thread_id="t1", message=NOTE))
        asked = [e for e in first if e.WhichOneof("event") == "confirmation_request"]
        request = asked[0].confirmation_request.confirmation
        answer = struct_pb2.Struct()
        answer.update({"approved": True})
        await served.inference.Confirm(
            pb.ConfirmRequest(request_id=request.request_id, answer=answer), metadata=ALICE
        )
        rest = await streamed(
            served, pb.InvokeRequest(thread_id="t1", after_event_id=first[-1].meta.event_id)
        )

    assert kinds(first)[:2] == ["status", "tool_start"]
    assert first[1].tool_start.tool == "save_note"
    assert dict(first[1].tool_start.args) == {"text": "buy milk"}
    assert request.tool == "save_note"
    assert first[-1].status.state == pb.SUSPENDED
    assert "tool_end" in kinds(rest)
    assert rest[-1].status.state == pb.COMPLETED
    assert rest[0].meta.event_id > first[-1].meta.event_id


async def test_invoke_returns_at_the_suspension_with_the_pending_confirmation(url: str) -> None:
    async with grpc_served(url) as served:
        reply = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message=NOTE), metadata=ALICE
        )

    assert reply.status == "suspended"
    [pending] = reply.pending_confirmations
    assert (pending.tool, dict(pending.args)) == ("save_note", {"text": "buy milk"})
    assert pending.request_id.startswith("cr")


async def test_cancel_ends_a_streaming_run_as_cancelled(url: str) -> None:
    async with grpc_served(url) as served:
        call = served.inference.Stream(
            pb.InvokeRequest(thread_id="t1", message="/delay 30000\nslow"), metadata=ALICE
        )
        first = await call.read()
        cancelled = await served.inference.Cancel(pb.CancelRequest(thread_id="t1"), metadata=ALICE)
        rest = await read_rest(call)
        again = await served.inference.Cancel(pb.CancelRequest(thread_id="t1"), metadata=ALICE)

    assert first.status.state == pb.RUNNING
    assert cancelled.cancelled is True
    assert rest[-1].status.state == pb.CANCELLED
    assert again.cancelled is False


async def test_a_retry_with_the_same_idempotency_key_never_starts_a_second_run(url: str) -> None:
    request = pb.InvokeRequest(thread_id="t1", message="hello", idempotency_key="attempt-1")
    async with grpc_served(url) as served:
        first = await served.inference.Invoke(request, metadata=ALICE)
        retried = await served.inference.Invoke(request, metadata=ALICE)
        replayed = await streamed(served, request)
        logged = await served.parts.events.read("acme/alice/t1")

    assert retried.run_id == first.run_id
    assert retried.text == first.text == 'You said: "hello"'
    assert replayed[-1].status.state == pb.COMPLETED
    assert sum('"run-start"' in e.json for e in logged) == 1


async def test_a_retry_during_the_run_follows_the_run_the_first_attempt_started(url: str) -> None:
    request = pb.InvokeRequest(
        thread_id="t1", message="/delay 100\nslow", idempotency_key="attempt-1"
    )
    async with grpc_served(url) as served:
        first = served.inference.Stream(request, metadata=ALICE)
        started = await first.read()
        retried = await streamed(served, request)
        rest = await read_rest(first)

    assert retried[0].run_id == started.run_id
    assert retried[-1].status.state == rest[-1].status.state == pb.COMPLETED


async def test_no_message_and_no_run_is_not_found(url: str) -> None:
    async with grpc_served(url) as served:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await served.inference.Invoke(pb.InvokeRequest(thread_id="t9"), metadata=ALICE)

    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert caught.value.details().startswith("thread_id: ")


async def test_a_deadline_ends_the_call_and_the_run_goes_on(url: str) -> None:
    request = pb.InvokeRequest(thread_id="t1", message="/delay 300\nslow", idempotency_key="k")
    async with grpc_served(url) as served:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await served.inference.Invoke(request, metadata=ALICE, timeout=0.1)
        finished = await served.inference.Invoke(request, metadata=ALICE)

    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert finished.status == "completed"


async def test_drain_ends_open_streams_saying_where_to_resume(url: str) -> None:
    async with grpc_served(url) as served:
        call = served.inference.Stream(
            pb.InvokeRequest(thread_id="t1", message="/delay 30000\nslow"), metadata=ALICE
        )
        first = await call.read()
        draining = asyncio.create_task(served.server.drain(5))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await read_rest(call)
        await draining

    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert f"after_event_id={first.meta.event_id}" in caught.value.details()


async def test_a_retry_after_the_suspension_gets_the_same_question_not_a_second_run(
    url: str,
) -> None:
    request = pb.InvokeRequest(thread_id="t1", message=NOTE, idempotency_key="step-1")
    async with grpc_served(url) as served:
        first = await served.inference.Invoke(request, metadata=ALICE)
        retried = await served.inference.Invoke(request, metadata=ALICE)
        other_key = await refused_code(
            served.inference.Invoke(
                pb.InvokeRequest(thread_id="t1", message=NOTE, idempotency_key="step-2"),
                metadata=ALICE,
            )
        )

    assert first.status == retried.status == "suspended"
    assert retried.run_id == first.run_id
    assert [p.request_id for p in retried.pending_confirmations] == [
        p.request_id for p in first.pending_confirmations
    ]
    assert other_key == grpc.StatusCode.ALREADY_EXISTS


async def refused_code(call: object) -> grpc.StatusCode:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code()
    raise AssertionError("the call succeeded")
