"""Fallback models: a call the first model fails at the provider is served by the next one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError
from pydantic_ai.models.function import AgentInfo, FunctionModel

from local_openai_server import local_openai_server
from runyard.messages import AgentMessage
from runyard.models import (
    ModelCall,
    ModelFallback,
    ModelProviderError,
    ModelTurn,
    TextDelta,
    model_label,
    resolve_model,
)

HELLO = [AgentMessage.user("hello")]


def failing(status: int | None, name: str = "primary") -> FunctionModel:
    """A model whose every call fails: HTTP ``status``, or a timeout when None."""

    def fail() -> Exception:
        if status is None:
            error = ModelAPIError(name, "Request timed out.")
            error.__cause__ = TimeoutError()
            return error
        return ModelHTTPError(status, name, {"message": "slow down"})

    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        raise fail()

    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise fail()
        yield ""  # a generator all the same

    return FunctionModel(respond, stream_function=stream, model_name=name)


def answering(text: str, name: str = "backup") -> FunctionModel:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart(text)])

    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in text.split(" "):
            yield word + " "

    return FunctionModel(respond, stream_function=stream, model_name=name)


class Switches:
    """The ``on_fallback`` hook of a test: every switch, in order."""

    def __init__(self) -> None:
        self.seen: list[ModelFallback] = []

    async def __call__(self, switch: ModelFallback) -> None:
        self.seen.append(switch)


@pytest.mark.parametrize(
    ("status", "reason"),
    [(429, "rate_limit"), (503, "server_error"), (400, "client_error"), (None, "timeout")],
)
async def test_a_failed_call_is_served_by_the_next_model_and_says_why(
    status: int | None, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    primary, backup = failing(status), answering("from the backup")
    switches = Switches()
    call = ModelCall(primary, [], fallbacks=[backup], on_fallback=switches)

    turn = await call.request(HELLO, instructions=None)

    assert turn.message.text == "from the backup"
    assert turn.model_name == model_label(backup)
    assert turn.usage.models == (model_label(backup),)
    (switch,) = switches.seen
    assert (switch.failed, switch.model, switch.reason, switch.status_code) == (
        model_label(primary),
        model_label(backup),
        reason,
        status,
    )
    (record,) = [r for r in caplog.records if r.name == "runyard.models.fallback"]
    assert record.levelname == "WARNING"
    assert model_label(backup) in record.getMessage()


async def test_a_streamed_call_switches_before_its_first_delta() -> None:
    primary, backup = failing(429), answering("streamed reply")
    switches = Switches()
    call = ModelCall(primary, [], fallbacks=[backup], on_fallback=switches)

    items = [item async for item in call.stream(HELLO, instructions=None)]

    assert [i.text for i in items if isinstance(i, TextDelta)] == ["streamed ", "reply "]
    turn = items[-1]
    assert isinstance(turn, ModelTurn)
    assert turn.model_name == model_label(backup)
    assert [s.reason for s in switches.seen] == ["rate_limit"]


async def test_a_stream_that_fails_after_its_first_delta_is_not_retried() -> None:
    async def breaks(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "half an answer"
        raise ModelHTTPError(503, "primary")

    switches = Switches()
    call = ModelCall(
        FunctionModel(stream_function=breaks, model_name="primary"),
        [],
        fallbacks=[answering("never asked")],
        on_fallback=switches,
    )
    seen: list[Any] = []

    async def consume() -> None:
        async for item in call.stream(HELLO, instructions=None):
            seen.append(item)

    with pytest.raises(ModelProviderError) as failed:
        await consume()

    assert failed.value.status_code == 503
    assert seen == [TextDelta("half an answer")]
    assert switches.seen == []


async def test_when_every_model_fails_the_last_failure_is_raised() -> None:
    first, second = failing(429, "first"), failing(503, "second")
    switches = Switches()
    call = ModelCall(first, [], fallbacks=[second], on_fallback=switches)

    with pytest.raises(ModelProviderError) as failed:
        await call.request(HELLO, instructions=None)

    assert (failed.value.status_code, failed.value.model) == (503, model_label(second))
    assert [(s.failed, s.model) for s in switches.seen] == [
        (model_label(first), model_label(second))
    ]


async def test_a_real_adapter_rate_limited_falls_back_to_another_server() -> None:
    async with local_openai_server() as limited, local_openai_server() as spare:
        limited.fail_with(429, "Rate limit reached", code="rate_limit_exceeded")
        primary = resolve_model("openai-compatible:primary", base_url=limited.base_url)
        backup = resolve_model("openai-compatible:backup", base_url=spare.base_url)
        switches = Switches()
        call = ModelCall(primary, [], fallbacks=[backup], on_fallback=switches)

        items = [item async for item in call.stream(HELLO, instructions=None)]

    turn = items[-1]
    assert isinstance(turn, ModelTurn)
    assert turn.model_name == "openai-compatible:backup"
    assert turn.message.text
    (switch,) = switches.seen
    assert (switch.failed, switch.reason, switch.status_code) == (
        "openai-compatible:primary",
        "rate_limit",
        429,
    )
    assert "Rate limit reached" in switch.error
    assert len(spare.bodies) == 1
