"""``StepProgress``: a step's ``StreamEvent``s folded into its ``AgentStepOutput`` as they
arrive, with the orchestrator's tokens held until the next heartbeat takes them."""

from __future__ import annotations

from google.protobuf import json_format

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.service import ORCHESTRATOR_ID
from runyard.temporal.step import (
    AgentStepOutput,
    AgentStepProgress,
    PendingConfirmation,
    StepStatus,
    StepUsage,
)

__all__ = ["StepProgress"]

_ENDED: dict[int, StepStatus] = {
    pb.COMPLETED: "completed",
    pb.SUSPENDED: "suspended",
    pb.CANCELLED: "cancelled",
    pb.FAILED: "error",
}


class StepProgress:
    """What the events of one step said so far; ``resumed`` is the last heartbeat of an earlier
    attempt of the same step."""

    def __init__(self, thread_id: str, resumed: AgentStepProgress | None = None) -> None:
        resumed = resumed or AgentStepProgress()
        self.thread_id = thread_id
        self.run_id = resumed.run_id
        self.last_event_id = resumed.last_event_id
        # Where a retried attempt reads on from: never past the run's end, or the retry would
        # find nothing of the run left to read and take it for a run that never finished.
        self._resume_after = resumed.last_event_id
        self.pending = list(resumed.pending_confirmations)
        # (event id, text); an earlier attempt's text as one piece no takeover takes back: its
        # tokens already went out with its heartbeats.
        self._text: list[tuple[int, str]] = [(0, resumed.text)]
        self._unsent: list[str] = []
        self._ended: pb.StatusEvent | None = None
        self._output: dict[str, object] | None = None

    @property
    def has_unsent_tokens(self) -> bool:
        return bool(self._unsent)

    def add(self, event: pb.StreamEvent) -> None:
        """Fold one event in."""
        self.run_id = event.run_id or self.run_id
        self.last_event_id = max(self.last_event_id, event.meta.event_id)
        kind = event.WhichOneof("event")
        if kind == "token" and event.agent_id == ORCHESTRATOR_ID:
            self._text.append((event.meta.event_id, event.token.text))
            self._unsent.append(event.token.text)
        elif kind == "run_resumed":  # what the dead server said after that is said again
            after = event.run_resumed.after_event_id
            self._text = [(said, text) for said, text in self._text if said <= after]
        elif kind == "confirmation_request":
            self.pending.append(_pending(event.confirmation_request.confirmation))
        elif kind == "content":
            self._output = _structured(event.content) or self._output
        elif kind == "status" and event.status.state in _ENDED:
            self._ended = event.status
            return
        self._resume_after = self.last_event_id

    def beat(self) -> AgentStepProgress:
        """The heartbeat's details; the tokens they carry count as sent."""
        tokens, self._unsent = "".join(self._unsent), []
        return AgentStepProgress(
            run_id=self.run_id,
            last_event_id=self._resume_after,
            text=self._joined(),
            tokens=tokens,
            pending_confirmations=list(self.pending),
        )

    def _joined(self) -> str:
        return "".join(text for _, text in self._text)

    def output(self) -> AgentStepOutput:
        """The step's result, once the run ended or suspended."""
        status = self._ended
        if status is None:
            raise RuntimeError("the stream ended before the run ended or suspended")
        usage = status.usage
        return AgentStepOutput(
            thread_id=self.thread_id,
            run_id=self.run_id,
            status=_ENDED[status.state],
            text=self._joined(),
            pending_confirmations=list(self.pending) if status.state == pb.SUSPENDED else [],
            usage=StepUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                cost=usage.cost if usage.HasField("cost") else None,
            ),
            error=status.reason if status.state in (pb.FAILED, pb.CANCELLED) else "",
            last_event_id=self.last_event_id,
            output=self._output,
        )


def _pending(asked: pb.PendingConfirmation) -> PendingConfirmation:
    return PendingConfirmation(
        request_id=asked.request_id,
        tool_call_id=asked.tool_call_id,
        tool=asked.tool,
        args=json_format.MessageToDict(asked.args),
        message=asked.message,
        input_type=asked.input_type,
        severity=asked.severity,
    )


def _structured(content: pb.ContentEvent) -> dict[str, object] | None:
    for block in content.blocks:
        if block.WhichOneof("block") == "json" and block.json.HasField("struct_value"):
            return json_format.MessageToDict(block.json.struct_value)
    return None
