"""Folding a run's chunks into a ``GenerateResult``: how ``generate`` drains the stream."""

from __future__ import annotations

from runyard.messages import AgentMessage
from runyard.runtime.chunks import (
    ErrorChunk,
    FinishChunk,
    StreamChunk,
    ToolCallSuspendedChunk,
)
from runyard.runtime.loop import AgentRuntime
from runyard.runtime.results import GenerateResult, PendingSuspend, total_cost

__all__ = ["ResultCollector"]


class ResultCollector:
    """A chunk sink that keeps what a ``GenerateResult`` needs; it never makes the run wait."""

    def __init__(self) -> None:
        self.pending_suspend: list[PendingSuspend] = []
        self.finish: FinishChunk | None = None
        self.error: BaseException | None = None

    async def send(self, chunk: StreamChunk) -> None:
        self.send_nowait(chunk)

    def send_nowait(self, chunk: StreamChunk) -> None:
        if isinstance(chunk, ToolCallSuspendedChunk):
            self.pending_suspend.append(chunk.pending_suspend())
        elif isinstance(chunk, FinishChunk):
            self.finish = chunk
        elif isinstance(chunk, ErrorChunk):
            self.error = chunk.error

    def result(self, runtime: AgentRuntime) -> GenerateResult:
        messages = runtime.list.response_delta()
        assistant = [m for m in messages if isinstance(m, AgentMessage) and m.role == "assistant"]
        finish = self.finish
        return GenerateResult(
            run_id=runtime.run_id,
            messages=messages,
            finish_reason=finish.finish_reason if finish else "error",
            usage=runtime.usage,
            model=runtime.spec.model_label,
            text=assistant[-1].text if assistant else "",
            structured_output=runtime.structured_output,
            pending_suspend=list(self.pending_suspend),
            error=self.error,
            sub_agent_usage=list(runtime.sub_agent_usage),
            total_cost=total_cost(runtime.usage, runtime.sub_agent_usage),
            tool_calls=list(runtime.tool_records),
        )
