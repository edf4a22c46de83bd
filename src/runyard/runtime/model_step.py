"""``ModelStep``: the loop's model call, made once per iteration.

It builds the request from the message list, passes it through the middleware, asks the model
for a whole turn or streams its deltas into the sink as they come, and wraps the call in its
span. It reads the list and never adds to it: recording the turn is the loop's business.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from runyard.errors import RunError
from runyard.models import (
    FileReader,
    ModelCall,
    ModelFallback,
    ModelTurn,
    ReasoningDelta,
    TextDelta,
    ToolSpec,
    Usage,
    has_file_references,
    read_file_references,
)
from runyard.runtime.chunks import (
    ChunkSink,
    ModelFallbackChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)
from runyard.runtime.first_token import FirstToken
from runyard.runtime.message_list import AgentMessageList
from runyard.runtime.middleware import DeltaChannel, ModelRequest
from runyard.runtime.output_budget import OutputBudget
from runyard.runtime.span_contents import input_messages, output_messages, system_instructions
from runyard.runtime.spec import RuntimeSpec
from runyard.telemetry import NO_TELEMETRY, TelemetrySpan
from runyard.telemetry.lazy_attributes import LazyAttributes

__all__ = ["ModelStep"]


class ModelStep:
    """Made once per loop (its ``ModelCall`` keeps converted messages, which go when the
    segment ends); ``take`` is one iteration's call."""

    __slots__ = (
        "_budget",
        "_call",
        "_fallbacks",
        "_files",
        "_first_token",
        "_instructions",
        "_messages",
        "_middleware",
        "_run_id",
        "_sent",
        "_sink",
        "_span",
        "_spec",
        "_streaming",
    )

    def __init__(
        self,
        spec: RuntimeSpec,
        *,
        messages: AgentMessageList,
        instructions: str,
        tool_specs: list[ToolSpec],
        budget: OutputBudget,
        sink: ChunkSink,
        streaming: bool,
        span: TelemetrySpan,
        run_id: str,
        files: FileReader | None = None,
    ) -> None:
        output = spec.output
        self._fallbacks = _Fallbacks(sink)
        """The switches of the call in progress (``runyard.models.fallback``)."""
        self._call = ModelCall(
            spec.model,
            tool_specs,
            output.tool if output else None,
            label=spec.model_label,
            # A middleware may rewrite the messages a call sends; without one they are the
            # list's own, which it never changes in place once recorded.
            reuse_messages=not spec.middleware.middleware,
            fallbacks=spec.fallback_models,
            on_fallback=self._fallbacks.record,
        )
        self._sent: ModelRequest | None = None
        """The request the call in progress sent last, for its span's contents."""
        self._spec = spec
        self._middleware = spec.middleware
        self._messages = messages
        self._instructions = instructions
        self._budget = budget
        self._sink = sink
        self._streaming = streaming
        self._span = span
        """The run's span; each call's span is its child."""
        self._run_id = run_id
        self._first_token = FirstToken()
        self._files = files
        """Reads the stored files messages name by ``file_id``, just before each call."""

    async def take(self, iteration: int, usage: Usage) -> ModelTurn:
        """One model call inside its span, a child of the run's; ``usage`` is the run's so far."""
        self._fallbacks.switches, self._sent = [], None
        if self._span is NO_TELEMETRY:
            return await self._call_model(usage)
        attributes = {"run_id": self._run_id, "iteration": iteration}
        span = self._span.start_span("model", self._spec.model_label, attributes)
        self._first_token = FirstToken()
        try:
            turn = await self._call_model(usage)
        except BaseException as exc:
            span.end(error=exc, attributes=self._ended({}, None))
            raise
        turn_usage = turn.usage
        ended: dict[str, object] = {
            "model": turn.model_name,
            "finish_reason": turn.finish_reason,
            "input_tokens": turn_usage.input_tokens,
            "output_tokens": turn_usage.output_tokens,
            "cost": turn_usage.cost,
            "time_to_first_token_s": self._first_token.seconds,
            "output_text": turn.message.text,
        }
        span.end(attributes=self._ended(ended, turn))
        return turn

    def _ended(self, values: dict[str, object], turn: ModelTurn | None) -> LazyAttributes:
        """What a call's span ends with: ``values``, the call's switches, and its contents in
        the GenAI conventions' shape, built only if something reads them."""
        if self._fallbacks.switches:
            values["fallbacks"] = [switch.to_dict() for switch in self._fallbacks.switches]
        lazy: dict[str, Callable[[], object]] = {}
        sent = self._sent
        if sent is not None:
            lazy["input_messages"] = partial(input_messages, sent.messages)
            lazy["system_instructions"] = partial(system_instructions, sent.instructions)
        if turn is not None:
            lazy["output_messages"] = partial(output_messages, turn.message, turn.finish_reason)
        return LazyAttributes(values, lazy)

    async def _call_model(self, usage: Usage) -> ModelTurn:
        request = ModelRequest(self._messages.for_llm(), self._instructions, self._spec.model)
        return await self._middleware.call_model(request, partial(self._send, usage))

    async def _send(self, usage: Usage, request: ModelRequest) -> ModelTurn:
        """``request`` as the middleware passed it on, to the model: whole or streamed."""
        settings = self._budget.settings(self._spec.model_settings, usage)
        self._sent = request  # for the span: what the middleware let through, files by reference
        if has_file_references(request.messages):
            # Innermost, so middleware sees the reference and never the bytes.
            messages = await read_file_references(request.messages, self._files)
            request = ModelRequest(messages, request.instructions, request.model)
        if not self._streaming:
            return await self._call.request(
                request.messages, instructions=request.instructions, settings=settings
            )
        return await self._stream_model(request, settings)

    async def _stream_model(
        self, request: ModelRequest, settings: Mapping[str, Any] | None
    ) -> ModelTurn:
        streamed: ModelTurn | None = None
        middleware = self._middleware
        # Without a filter a delta goes out as it came: no relay to pass it through.
        relay = middleware.delta_relay() if middleware.middleware else None
        items = self._call.stream(
            request.messages, instructions=request.instructions, settings=settings
        )
        async for item in items:
            self._first_token.mark()
            if isinstance(item, TextDelta | ReasoningDelta):
                channel: DeltaChannel = "text" if isinstance(item, TextDelta) else "reasoning"
                if relay is None:
                    await self._sink.send(_delta_chunk(channel, item.text))
                else:
                    await self._send_deltas(relay.push(channel, item.text))
            elif isinstance(item, ModelTurn):
                streamed = item
            else:
                if relay is not None:
                    await self._send_deltas(relay.flush())
                await self._sink.send(
                    ToolCallDeltaChunk(item.tool_call_id, item.tool_name, item.args_delta)
                )
        if relay is not None:
            await self._send_deltas(relay.flush())
        if streamed is None:
            raise RunError("The model stream ended without a response")
        return streamed

    async def _send_deltas(self, deltas: list[tuple[DeltaChannel, str]]) -> None:
        for channel, text in deltas:
            await self._sink.send(_delta_chunk(channel, text))


class _Fallbacks:
    """The model switches of the call in progress, each told to the stream as it happens. Kept
    apart from the ``ModelStep``: the ``ModelCall`` holds its hook, and a hook bound to the step
    would tie the two in a cycle that only the collector's full passes free."""

    __slots__ = ("_sink", "switches")

    def __init__(self, sink: ChunkSink) -> None:
        self._sink = sink
        self.switches: list[ModelFallback] = []

    async def record(self, switch: ModelFallback) -> None:
        self.switches.append(switch)
        await self._sink.send(
            ModelFallbackChunk(switch.failed, switch.model, switch.reason, switch.error)
        )


def _delta_chunk(channel: DeltaChannel, text: str) -> TextDeltaChunk | ReasoningDeltaChunk:
    return TextDeltaChunk(text) if channel == "text" else ReasoningDeltaChunk(text)
