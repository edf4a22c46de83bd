"""``Summarisation``: an over-long context reaches the model as a summary plus its recent end."""

from __future__ import annotations

import pytest
from pydantic_ai import messages as pai

from runyard import Agent, ConfigurationError, Summarisation
from runyard.messages import AgentMessage, TextPart
from runyard.runtime.middleware import SUMMARY_PREFIX
from runyard.testing import ScriptedModel, ToolCall, Turn, scripted_model, text
from runyard.tools import tool


def system_text(model: ScriptedModel, request: int) -> list[str]:
    """The system prompt parts of one request the model got, in order."""
    return [
        str(part.content)
        for message in model.requests[request]
        if isinstance(message, pai.ModelRequest)
        for part in message.parts
        if isinstance(part, pai.SystemPromptPart)
    ]


def history(count: int) -> list[AgentMessage]:
    roles = ("user", "assistant")
    return [
        AgentMessage(role=roles[i % 2], parts=[TextPart(text=f"message {i}")]) for i in range(count)
    ]


async def test_over_max_messages_the_model_reads_the_summary_and_the_last_messages() -> None:
    summariser = scripted_model([text("They counted to eight.")])
    model = scripted_model([text("nine")])
    middleware = Summarisation(max_messages=6, keep_last=3, model=summariser)
    agent = Agent("a", model, middleware=[middleware])

    result = await agent.generate([*history(8), *history(1)])

    assert result.text == "nine"
    sent = repr(model.requests[0])
    assert SUMMARY_PREFIX + "They counted to eight." in system_text(model, 0)
    assert "message 6" in sent
    assert "message 7" in sent
    assert "message 5" not in sent
    transcript = repr(summariser.requests[0])
    assert "user: message 0" in transcript
    assert "assistant: message 5" in transcript


async def test_a_short_context_is_sent_as_it_is() -> None:
    summariser = scripted_model([])
    model = scripted_model([text("ok")])
    middleware = Summarisation(max_messages=6, keep_last=2, model=summariser)
    agent = Agent("a", model, middleware=[middleware])

    await agent.generate(history(3))

    assert summariser.requests == []
    assert "message 0" in repr(model.requests[0])


async def test_the_token_estimate_triggers_it_and_the_agents_model_writes_the_summary() -> None:
    model = scripted_model([text("short version"), text("answer")])
    long_text = [AgentMessage(role="user", parts=[TextPart(text="word " * 400)]), *history(2)]
    agent = Agent("a", model, middleware=[Summarisation(max_tokens=200, keep_last=2)])

    result = await agent.generate(long_text)

    assert result.text == "answer"
    assert system_text(model, 1) == [SUMMARY_PREFIX + "short version"]
    assert "word word" not in repr(model.requests[1])


async def test_the_cut_keeps_tool_results_with_their_call_and_a_summary_is_reused() -> None:
    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    summariser = scripted_model([text("first summary"), text("second summary")])
    calls = [ToolCall("ping", {}, id="p1")]
    model = scripted_model([Turn(tool_calls=calls), text("done"), text("again")])
    middleware = Summarisation(max_messages=4, keep_last=1, model=summariser)
    agent = Agent("a", model, tools=[ping], middleware=[middleware])
    messages = history(5)

    result = await agent.generate(messages)
    await agent.generate(messages)

    assert result.text == "done"
    # keep_last=1 would start at the tool result; the cut moved back to the call.
    second = model.requests[1]
    assert system_text(model, 1) == [SUMMARY_PREFIX + "second summary"]
    assert isinstance(second[-2], pai.ModelResponse)
    assert [p.tool_name for p in second[-2].parts if isinstance(p, pai.ToolCallPart)] == ["ping"]
    # The same five messages again: the first summary is reused, not asked for a third time.
    assert system_text(model, 2) == [SUMMARY_PREFIX + "first summary"]
    assert len(summariser.requests) == 2


def test_it_needs_a_trigger_and_a_sensible_keep_last() -> None:
    with pytest.raises(ConfigurationError, match="max_messages, max_tokens"):
        Summarisation()
    with pytest.raises(ConfigurationError, match="keep_last"):
        Summarisation(max_messages=3, keep_last=3)
