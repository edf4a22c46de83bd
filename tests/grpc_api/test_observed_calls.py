"""A gRPC call is observed like an HTTP request: its server span continues the caller's trace
and is the parent of the run it starts, and it carries the call's request id."""

from __future__ import annotations

from pathlib import Path

import grpc
from grpc_harness import ALICE, grpc_served
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.observability import Tracing

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


async def test_an_invoke_is_the_parent_span_of_its_run_in_the_callers_trace(
    tmp_path: Path,
) -> None:
    spans = InMemorySpanExporter()
    tracing = Tracing.with_processor(SimpleSpanProcessor(spans))
    metadata = (*ALICE, ("traceparent", TRACEPARENT), ("x-request-id", "req-grpc-1"))
    async with grpc_served(f"sqlite:///{tmp_path / 'runyard.db'}", tracing=tracing) as served:
        reply = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message="hello"), metadata=metadata
        )
        await served.inference.ListAgents(pb.ListAgentsRequest(), metadata=ALICE)
    finished = spans.get_finished_spans()
    (call,) = [s for s in finished if s.name == "runyard.v1.InferenceService/Invoke"]
    (run,) = [s for s in finished if s.name.startswith("invoke_agent ")]
    (listing,) = [s for s in finished if s.name == "runyard.v1.InferenceService/ListAgents"]

    assert reply.status == "completed"
    assert run.parent is not None
    assert run.parent.span_id == call.context.span_id
    assert format(call.context.trace_id, "032x") == TRACE_ID
    attributes = dict(call.attributes or {})
    assert attributes["runyard.request_id"] == "req-grpc-1"
    assert (attributes["rpc.system"], attributes["rpc.method"]) == ("grpc", "Invoke")
    assert attributes["rpc.grpc.status_code"] == grpc.StatusCode.OK.value[0]
    assert listing.context.trace_id != call.context.trace_id  # a call without traceparent


async def test_a_refused_call_ends_its_span_as_an_error(tmp_path: Path) -> None:
    spans = InMemorySpanExporter()
    tracing = Tracing.with_processor(SimpleSpanProcessor(spans))
    async with grpc_served(f"sqlite:///{tmp_path / 'runyard.db'}", tracing=tracing) as served:
        try:
            await served.inference.Confirm(pb.ConfirmRequest(request_id="nope"), metadata=ALICE)
        except grpc.aio.AioRpcError as exc:
            code = exc.code()
    (call,) = [s for s in spans.get_finished_spans() if s.name.endswith("/Confirm")]

    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert dict(call.attributes or {})["rpc.grpc.status_code"] == code.value[0]
    assert not call.status.is_ok
