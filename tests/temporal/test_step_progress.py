"""``StepProgress`` folds a step's ``StreamEvent``s into its output and its heartbeats, and
``call_failure`` decides which refusals a retry could mend."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import struct_pb2

from runyard.grpc import ERROR_CODE
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.temporal import AgentStepProgress
from runyard.temporal.failures import call_failure
from runyard.temporal.progress import StepProgress

RUN = "run_1"


def event(event_id: int, agent_id: str = "agent-001", **kind: object) -> pb.StreamEvent:
    made = pb.StreamEvent(run_id=RUN, agent_id=agent_id, **kind)  # type: ignore[arg-type]
    made.meta.event_id = event_id
    return made


def token(event_id: int, text: str, agent_id: str = "agent-001") -> pb.StreamEvent:
    return event(event_id, agent_id, token=pb.TokenEvent(text=text))


def finish(event_id: int) -> pb.StreamEvent:
    usage = pb.Usage(input_tokens=3, output_tokens=4, total_tokens=7, cost=0.5)
    return event(event_id, status=pb.StatusEvent(state=pb.COMPLETED, usage=usage))


def test_the_output_has_the_orchestrators_text_usage_and_structured_output() -> None:
    data = struct_pb2.Value()
    data.struct_value.update({"answer": 42})
    progress = StepProgress("t1")
    for item in [
        event(1, status=pb.StatusEvent(state=pb.RUNNING)),
        token(2, "Hello "),
        token(3, "ignored", agent_id="agent-002"),
        token(4, "there"),
        event(5, content=pb.ContentEvent(blocks=[pb.ContentBlock(json=data)])),
        finish(6),
    ]:
        progress.add(item)
    output = progress.output()

    assert (output.status, output.text, output.run_id) == ("completed", "Hello there", RUN)
    assert (output.usage.total_tokens, output.usage.cost) == (7, 0.5)
    assert output.output == {"answer": 42}
    assert (output.last_event_id, output.error, output.pending_confirmations) == (6, "", [])


def test_a_heartbeat_carries_the_tokens_since_the_last_and_never_points_past_the_runs_end() -> None:
    progress = StepProgress("t1", AgentStepProgress(run_id=RUN, last_event_id=3, text="Hi "))
    progress.add(token(4, "there"))
    first = progress.beat()
    progress.add(token(5, "!"))
    progress.add(finish(6))
    second = progress.beat()

    assert (first.text, first.tokens, first.last_event_id) == ("Hi there", "there", 4)
    # A retry after the run-finish reads that run-finish again, and ends as the run did.
    assert (second.text, second.tokens, second.last_event_id) == ("Hi there!", "!", 5)
    assert progress.output().text == "Hi there!"


def test_a_stream_that_stops_before_the_run_ended_has_no_output() -> None:
    progress = StepProgress("t1")
    progress.add(token(1, "half"))

    with pytest.raises(RuntimeError, match="before the run ended or suspended"):
        progress.output()


def refusal(status: grpc.StatusCode, code: str) -> grpc.aio.AioRpcError:
    trailing = grpc.aio.Metadata((ERROR_CODE, code)) if code else grpc.aio.Metadata()
    return grpc.aio.AioRpcError(status, grpc.aio.Metadata(), trailing, details="why")


@pytest.mark.parametrize(
    ("status", "code", "final"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, "invalid_thread_id", True),
        (grpc.StatusCode.NOT_FOUND, "agent_not_found", True),
        (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated", True),
        (grpc.StatusCode.FAILED_PRECONDITION, "agent_required", True),
        (grpc.StatusCode.FAILED_PRECONDITION, "run_busy", False),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited", False),
        (grpc.StatusCode.ALREADY_EXISTS, "run_active", False),
        (grpc.StatusCode.UNAVAILABLE, "", False),
    ],
)
def test_only_refusals_a_retry_could_mend_are_retried(
    status: grpc.StatusCode, code: str, final: bool
) -> None:
    failure = call_failure(refusal(status, code))

    assert failure.type == (code or status.name)
    assert failure.non_retryable is final
    assert failure.message == f"{status.name}: why"


def test_a_takeover_drops_what_the_dead_server_said_and_keeps_an_earlier_attempts_text() -> None:
    progress = StepProgress("t1", AgentStepProgress(run_id=RUN, last_event_id=3, text="Hi. "))
    for item in [
        token(4, "half an ans"),
        event(5, run_resumed=pb.RunResumedEvent(after_event_id=3)),
        token(6, "a whole answer"),
        finish(7),
    ]:
        progress.add(item)

    assert progress.output().text == "Hi. a whole answer"
