"""``PiiRedaction``: what the model reads, the streamed deltas and the recorded answer."""

from __future__ import annotations

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard import Agent, ConfigurationError, PiiRedaction
from runyard.runtime.middleware import Redactor
from runyard.runtime.middleware.pii_redaction import BUILTIN_PII_PATTERNS
from runyard.testing import Turn, call, scripted_model, text
from runyard.tools import tool
from streamed_pieces import pieces_model


@pytest.mark.parametrize(
    ("raw", "redacted"),
    [
        ("mail alice.smith@example.co.uk now", "mail [EMAIL] now"),
        ("call +1 555 123 4567 or 030-1234567", "call [PHONE] or [PHONE]"),
        ("card 4111 1111 1111 1111.", "card [CARD]."),
        ("pay DE89 3704 0044 0532 0130 00 today", "pay [IBAN] today"),
        ("on 2026-11-23 at 10:30 we paid 1,200.50", "on 2026-11-23 at 10:30 we paid 1,200.50"),
    ],
)
def test_the_built_in_kinds(raw: str, redacted: str) -> None:
    assert Redactor(BUILTIN_PII_PATTERNS).redact(raw) == redacted


def test_extra_patterns_and_a_subset_of_kinds() -> None:
    redaction = PiiRedaction(kinds=["email"], patterns={"employee_id": r"EMP-\d{6}"})
    assert redaction.redactor.redact("EMP-123456 at a@b.io, +1 555 123 4567") == (
        "[EMPLOYEE_ID] at [EMAIL], +1 555 123 4567"
    )
    with pytest.raises(ConfigurationError, match="unknown pii kind"):
        PiiRedaction(kinds=["ssn"])
    with pytest.raises(ConfigurationError, match="does not compile"):
        PiiRedaction(patterns={"bad": "("})


async def test_an_email_split_across_deltas_never_streams_and_the_record_matches() -> None:
    model = pieces_model(
        "Write to ali", "ce@exam", "ple.com", " or call +1 555 ", "123 4567 today."
    )
    agent = Agent("a", model, middleware=[PiiRedaction(hold_chars=24)])

    stream = await agent.stream("contact?")
    chunks = [chunk async for chunk in stream]
    streamed = "".join(c.delta for c in chunks if c.type == "text-delta")
    recorded = next(c.message for c in chunks if c.type == "message")

    assert streamed == "Write to [EMAIL] or call [PHONE] today."
    assert all("@" not in c.delta for c in chunks if c.type == "text-delta")
    assert recorded.text == streamed


async def test_the_model_reads_user_text_and_tool_results_redacted() -> None:
    @tool
    def lookup() -> dict[str, str]:
        """The customer's contact."""
        return {"email": "bob@example.org"}

    model = scripted_model([call("lookup"), text("ok")])
    agent = Agent("a", model, tools=[lookup], middleware=[PiiRedaction()])

    result = await agent.generate("I am carol@example.net")

    sent = repr(model.requests[1])
    assert "carol@example.net" not in sent
    assert "bob@example.org" not in sent
    assert sent.count("[EMAIL]") == 2
    # The tool itself got what it returned; only the model's copy is redacted.
    assert result.messages[1].parts[0].result == {"email": "bob@example.org"}


async def test_streamed_reasoning_is_redacted_too_and_keeps_its_place_before_the_text() -> None:
    turn = Turn(reasoning="The user is erin@example.com.", text="Done.")
    agent = Agent("a", scripted_model([turn]), middleware=[PiiRedaction()])

    stream = await agent.stream("go")
    deltas = [(c.type, c.delta) async for c in stream if c.type.endswith("-delta")]

    assert deltas == [("reasoning-delta", "The user is [EMAIL]."), ("text-delta", "Done.")]


def test_an_agent_refuses_middleware_that_is_no_middleware() -> None:
    with pytest.raises(ConfigurationError, match=r"must subclass runyard\.Middleware"):
        Agent("a", scripted_model([]), middleware=[object()])  # type: ignore[list-item]


async def test_generate_returns_the_answer_redacted() -> None:
    agent = Agent(
        "a", scripted_model([text("It is dan@example.com.")]), middleware=[PiiRedaction()]
    )
    assert (await agent.generate("who?")).text == "It is [EMAIL]."


async def test_the_model_reads_the_instructions_redacted() -> None:
    """Working memory and observations are written into the instructions: they hold what users
    said, so an address there reaches the model as ``[EMAIL]`` too."""
    seen: list[str] = []

    async def respond(messages: list[pai.ModelMessage], _: AgentInfo) -> pai.ModelResponse:
        seen.extend(m.instructions or "" for m in messages if isinstance(m, pai.ModelRequest))
        return pai.ModelResponse(parts=[pai.TextPart("ok")])

    agent = Agent(
        "a",
        FunctionModel(respond),
        instructions="The user is jane@example.com; be brief.",
        middleware=[PiiRedaction()],
    )
    await agent.generate("hi")

    assert seen == ["The user is [EMAIL]; be brief."]
