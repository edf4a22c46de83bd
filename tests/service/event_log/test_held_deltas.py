"""A secret the model streams split across deltas never reaches the event log, at any split
point and on either channel, and the text around it comes out unchanged and in order."""

from __future__ import annotations

import pytest

from runyard.protocol import (
    ReasoningDeltaEvent,
    ReasoningDeltaPayload,
    RunFinishEvent,
    RunFinishPayload,
    StatusEvent,
    StatusPayload,
    TextDeltaEvent,
    TextDeltaPayload,
    WireEvent,
    parse_event,
)
from runyard.redaction import REDACTED, SHAPE_HOLD_CHARS, SecretRedactor
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus
from runyard.service.event_log.held_deltas import HeldDeltas
from runyard.storage import Store

KNOWN = "canary-Zq8uXw3Lp0TtRv"
SHAPED = "sk-proj-" + "Ab1" * 10
"""A provider key the redactor knows only by its shape."""
OTHER_KEYS = ["ryk_" + "A1b2" * 13 + "xyz", "ghp_" + "a1" * 18, "AKIA" + "ABCDEFGHIJKLMNOP"]
"""A runyard key (it may begin mid-word), a GitHub token and an AWS key id, by shape too."""
TOKEN = "eyJhbGciOiJIUzI1NiJ9"
BEARER = f"Authorization: Bearer {TOKEN}"
USERINFO = f"postgresql://app:{TOKEN}@db/x"
"""Shapes whose secret is only a part of the match, and needs the words before it."""
FINISHED = RunFinishPayload(status="completed")


def delta(piece: str, agent: str = "agent-001") -> TextDeltaEvent:
    return TextDeltaEvent(run_id="run_1", agent_id=agent, payload=TextDeltaPayload(text=piece))


def thought(piece: str, agent: str = "agent-001") -> ReasoningDeltaEvent:
    return ReasoningDeltaEvent(
        run_id="run_1", agent_id=agent, payload=ReasoningDeltaPayload(text=piece)
    )


def text_of(events: list[WireEvent], kind: str = "text-delta", agent: str = "agent-001") -> str:
    return "".join(
        e.payload.text  # type: ignore[union-attr]
        for e in events
        if e.type == kind and e.agent_id == agent
    )


def splits(secret: str) -> list[list[str]]:
    """Every way to cut ``secret`` in two, and in three at every pair of points a third apart."""
    twos = [[secret[:i], secret[i:]] for i in range(1, len(secret))]
    third = len(secret) // 3
    threes = [[secret[:i], secret[i : i + third], secret[i + third :]] for i in range(1, 2 * third)]
    return twos + threes


@pytest.mark.parametrize("secret", [KNOWN, SHAPED, BEARER, USERINFO, *OTHER_KEYS])
def test_a_secret_split_anywhere_is_redacted_whole_and_the_rest_is_unchanged(secret: str) -> None:
    redactor = SecretRedactor([KNOWN])
    for pieces in splits(secret):
        held = HeldDeltas(redactor)
        out: list[WireEvent] = []
        for piece in ["Here it is: ", *pieces, " — keep it safe."]:
            out += held.take(delta(piece))
        out += held.take(RunFinishEvent(run_id="run_1", agent_id="agent-001", payload=FINISHED))

        streamed = text_of(out)
        for leaked in (TOKEN, KNOWN[:8], SHAPED[:12], *(key[:12] for key in OTHER_KEYS)):
            assert leaked not in streamed, pieces
        whole = "".join(["Here it is: ", *pieces, " — keep it safe."])
        assert streamed == redactor.redact(whole), pieces
        assert REDACTED in streamed
        assert out[-1].type == "run-finish"


@pytest.mark.parametrize(
    ("stream", "sent"),
    [
        ("plain words and more words", "plain words and more words"),
        ("a key may follow: sk", "a key may follow: "),
        ("or a runyard key: her", "or a runyard key: "),
        ("ends in a space ", "ends in a space "),
        (f"a known value begins: {KNOWN[:9]}", "a known value begins: "),
        (f"one with spaces: {KNOWN} x", f"one with spaces: {REDACTED} "),
        ("r" * 300, "r" * (300 - SHAPE_HOLD_CHARS)),
    ],
)
def test_only_a_last_word_that_may_begin_a_secret_or_a_known_values_beginning_is_held(
    stream: str, sent: str
) -> None:
    assert text_of(HeldDeltas(SecretRedactor([KNOWN])).take(delta(stream))) == sent


def test_with_operator_patterns_the_whole_hold_is_held() -> None:
    redactor = SecretRedactor(patterns=[r"pin \d{4} \d{4}"])
    stream = "x " * 100

    sent = HeldDeltas(redactor).take(delta(stream))

    assert text_of(sent) == stream[: len(stream) - redactor.hold_chars]


def test_another_event_of_the_agent_releases_what_it_holds_first_in_stream_order() -> None:
    held = HeldDeltas(SecretRedactor([KNOWN]))
    status = StatusEvent(run_id="run_1", agent_id="agent-001", payload=StatusPayload(message="x"))

    out = [*held.take(thought("thinking ")), *held.take(delta("answer ")), *held.take(status)]
    other = held.take(delta("sub-agent sk", agent="agent-002"))

    assert [(e.type, getattr(e.payload, "text", None)) for e in out] == [
        ("reasoning-delta", "thinking "),
        ("text-delta", "answer "),
        ("status", None),
    ]
    # Another agent's held word waits for that agent's own next event.
    assert text_of(other, agent="agent-002") == "sub-agent "
    assert text_of(held.release(), agent="agent-002") == "sk"


def test_deltas_that_cannot_begin_a_secret_pass_untouched() -> None:
    held = HeldDeltas(SecretRedactor([KNOWN]))
    deltas = [
        delta(word) for word in ["The", " person", " said", " hello,", " I", " will", " echo"]
    ]

    out = [event for d in deltas for event in held.take(d)]

    assert [id(e) for e in out] == [id(d) for d in deltas]  # the very events, not rebuilt


async def test_the_writer_stores_split_secrets_redacted_and_releases_held_text_on_close(
    store: Store,
) -> None:
    log = EventLog(store, InProcessEventBus(), redactor=SecretRedactor([KNOWN]))
    async with log.writer("t1") as writer:
        for piece in ("key ", KNOWN[:5], KNOWN[5:], " end"):
            writer.emit(delta(piece))
    await log.close()

    stored = [parse_event(e.data) for e in await store.read_events("t1")]
    assert text_of(stored) == f"key {REDACTED} end"
    assert [e.id for e in await store.read_events("t1")] == list(range(1, len(stored) + 1))
