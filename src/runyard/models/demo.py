"""``runyard:demo``: an offline model that streams like a real one, for trying runyard without a key.

What it answers is decided in ``demo_script``; this module only plays those steps as a
pydantic-ai model, so the rest of runyard cannot tell it from a provider.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai import messages as pai
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from runyard.models.conversion import from_model_messages
from runyard.models.demo_script import DemoScript, DemoStep, plan_reply
from runyard.models.tokens import estimate_message_tokens, estimate_tokens

__all__ = ["DemoModel", "DemoStreamedResponse"]


class DemoModel(Model):
    """The offline demo model (``"runyard:demo"``): deterministic, no network, cost 0."""

    @property
    def model_name(self) -> str:
        """Always ``"demo"``."""
        return "demo"

    @property
    def system(self) -> str:
        """Always ``"runyard"``."""
        return "runyard"

    async def request(
        self,
        messages: list[pai.ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> pai.ModelResponse:
        """The same response as the stream, played to the end (so delays apply here too)."""
        async with self.request_stream(
            messages, model_settings, model_request_parameters
        ) as stream:
            async for _event in stream:
                pass
        return stream.get()

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[pai.ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the scripted reply; each delta waits for the ``/delay`` the user asked for.

        A ``/fail STATUS`` line fails the request as a provider does, with pydantic-ai's
        ``ModelHTTPError``, so the whole failure path can be tried offline.
        """
        model_settings, model_request_parameters = self.prepare_request(
            model_settings, model_request_parameters
        )
        script = plan_reply(messages, model_request_parameters.output_tools)
        if script.fail_status is not None:
            message = f"the demo model was asked to fail with HTTP {script.fail_status}"
            raise ModelHTTPError(script.fail_status, self.model_name, {"message": message})
        input_tokens = estimate_message_tokens(from_model_messages(messages))
        yield DemoStreamedResponse(
            model_request_parameters=model_request_parameters,
            _script=script,
            _input_tokens=input_tokens,
        )


@dataclass
class DemoStreamedResponse(StreamedResponse):
    """Plays a ``DemoScript`` as pydantic-ai stream events."""

    _script: DemoScript = field(default_factory=DemoScript)
    _input_tokens: int = 0
    _timestamp: datetime = field(default_factory=lambda: datetime.now(tz=UTC))

    async def _get_event_iterator(self) -> AsyncIterator[pai.ModelResponseStreamEvent]:
        output_tokens = 0
        for step in self._script.steps:
            if self._script.delay_ms:
                await asyncio.sleep(self._script.delay_ms / 1000)
            output_tokens += estimate_tokens(step.text or step.args)
            for event in self._events(step):
                yield event
        self.finish_reason = "tool_call" if self._has_tool_calls() else "stop"
        self._usage = RequestUsage(
            input_tokens=self._input_tokens, output_tokens=output_tokens, cost=Decimal(0)
        )

    def _events(self, step: DemoStep) -> Iterator[pai.ModelResponseStreamEvent]:
        parts = self._parts_manager
        if step.kind == "reasoning":
            yield from parts.handle_thinking_delta(vendor_part_id="reasoning", content=step.text)
        elif step.kind == "text":
            yield from parts.handle_text_delta(vendor_part_id="text", content=step.text)
        elif step.file is not None:
            yield parts.handle_part(vendor_part_id=None, part=pai.FilePart(step.file))
        else:
            yield parts.handle_tool_call_part(
                vendor_part_id=step.tool_call_id,
                tool_name=step.tool_name,
                args=step.args,
                tool_call_id=step.tool_call_id,
            )

    def _has_tool_calls(self) -> bool:
        return any(step.kind == "tool-call" for step in self._script.steps)

    async def close_stream(self) -> None:
        """Nothing to close: the demo has no connection."""

    @property
    def model_name(self) -> str:
        """Always ``"demo"``."""
        return "demo"

    @property
    def provider_name(self) -> str:
        """Always ``"runyard"``."""
        return "runyard"

    @property
    def provider_url(self) -> None:
        """The demo has no URL."""
        return None

    @property
    def timestamp(self) -> datetime:
        """When the response started."""
        return self._timestamp
