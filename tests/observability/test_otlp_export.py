"""OTLP export: a run's trace tree reaches a local OTLP/HTTP receiver (run → model calls →
tools → a sub-agent's run under the tool call that ran it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from runyard import Agent, tool
from runyard.observability import Metrics, Tracing
from runyard.telemetry.observed import ObservedTelemetry
from runyard.testing import call, scripted_model, text


class Receiver(ThreadingHTTPServer):
    """Accepts OTLP/HTTP protobuf exports on ``/v1/traces`` and keeps their spans."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.paths: list[str] = []
        self.spans: list[Any] = []


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportTraceServiceRequest.FromString(body)
        self.server.paths.append(self.path)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                self.server.spans.extend(scope.spans)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_run_trace_tree_reaches_a_local_otlp_receiver(receiver: Receiver) -> None:
    port = receiver.server_address[1]
    tracing = Tracing.exporting(f"http://127.0.0.1:{port}", environ={})
    telemetry = ObservedTelemetry(Metrics(), tracing).bound(tenant="acme", version="v3")
    helper = Agent(
        "helper", scripted_model([call("add", {"a": 2, "b": 3}), text("5")]), tools=[add]
    )
    boss_model = scripted_model([call("ask_helper", {"input": "2+3?"}), text("it is 5")])
    boss = Agent("boss", boss_model, tools=[helper.as_tool("Adds", name="ask_helper")])

    result = await boss.generate("add please", telemetry=telemetry)
    tracing.shutdown()  # flushes the batch

    assert set(receiver.paths) == {"/v1/traces"}
    spans = {span.name: span for span in receiver.spans}
    assert sorted(spans) == [
        "chat " + boss_model.model_name,
        "execute_tool add",
        "execute_tool ask_helper",
        "invoke_agent boss",
        "invoke_agent helper",
    ]
    run, delegated = spans["invoke_agent boss"], spans["execute_tool ask_helper"]
    sub, added = spans["invoke_agent helper"], spans["execute_tool add"]
    assert run.parent_span_id == b""
    assert delegated.parent_span_id == run.span_id
    assert sub.parent_span_id == delegated.span_id
    assert added.parent_span_id == sub.span_id
    chats = [s for s in receiver.spans if s.name.startswith("chat ")]
    assert sorted(c.parent_span_id == run.span_id for c in chats) == [False, False, True, True]
    attributes = {a.key: a.value.string_value for a in run.attributes}
    assert attributes["agent_instance_id"] == "boss@v3"
    assert attributes["runyard.tenant"] == "acme"
    assert attributes["runyard.run_id"] == result.run_id
    assert len({s.trace_id for s in receiver.spans}) == 1
