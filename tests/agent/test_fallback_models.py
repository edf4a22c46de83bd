"""``Agent(fallback_models=...)``: a call the agent's model fails at the provider is answered by
the next model; the stream says so with a ``model-fallback`` chunk and the usage names who
answered."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic_ai import messages as pai
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard import Agent
from runyard.runtime import FinishChunk, ModelFallbackChunk, TextDeltaChunk
from runyard.testing import scripted_model, text


def overloaded() -> FunctionModel:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        raise ModelHTTPError(503, "primary", "overloaded")

    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise ModelHTTPError(503, "primary", "overloaded")
        yield ""  # a generator all the same

    return FunctionModel(respond, stream_function=stream, model_name="primary")


async def test_generate_is_answered_by_the_fallback_model() -> None:
    backup = scripted_model([text("from the backup")], model_name="backup")
    agent = Agent("helper", overloaded(), fallback_models=[backup])

    result = await agent.generate("hi")

    assert result.error is None
    assert result.text == "from the backup"
    assert result.usage.models == ("function:backup",)


async def test_stream_shows_the_switch_before_the_fallback_models_answer() -> None:
    backup = scripted_model([text("streamed")], model_name="backup")
    agent = Agent("helper", overloaded(), fallback_models=[backup])

    stream = await agent.stream("hi")
    chunks = [chunk async for chunk in stream]

    switch = next(c for c in chunks if isinstance(c, ModelFallbackChunk))
    assert (switch.failed, switch.model, switch.reason) == (
        "function:primary",
        "function:backup",
        "server_error",
    )
    assert chunks.index(switch) < min(
        i for i, c in enumerate(chunks) if isinstance(c, TextDeltaChunk)
    )
    finish = chunks[-1]
    assert isinstance(finish, FinishChunk)
    assert finish.usage.models == ("function:backup",)


async def test_without_fallbacks_the_providers_failure_ends_the_run() -> None:
    agent = Agent("helper", overloaded())

    result = await agent.generate("hi")

    assert result.finish_reason == "error"
    assert "503" in str(result.error)
