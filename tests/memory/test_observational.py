"""Observational memory end to end: triggers, background buffering, one observer per thread,
failures that lose nothing, reflection, and the [observations][recent raw] context."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable

import pytest
from memory_support import ALICE, Observer, instructions, sent_texts, words

from runyard.agent import Agent
from runyard.memory import Memory, ObservationalConfig
from runyard.memory.observational import count_tokens
from runyard.memory.observational.prompts import BLOCK_CLOSE
from runyard.messages import AgentMessage
from runyard.storage import MessageCursor, Store
from runyard.testing import scripted_model, text

OWNER = {"tenant_id": "default", "resource_id": "alice"}


MemoryFactory = Callable[..., Memory]


@pytest.fixture
async def make_memory(store: Store) -> AsyncIterator[MemoryFactory]:
    """Builds observational memories on ``store`` and closes them before the store closes."""
    made: list[Memory] = []

    def build(observer: Observer, **overrides: int) -> Memory:
        config = ObservationalConfig(
            model=observer.model,
            observer_message_tokens=overrides.get("observe", 200),
            reflector_observation_tokens=overrides.get("reflect", 10_000),
        )
        made.append(Memory(store, observational=config))
        return made[-1]

    yield build
    for memory in made:
        await memory.aclose()


def _turn(i: int) -> list[AgentMessage]:
    return [AgentMessage.user(words(f"q{i}")), AgentMessage.assistant(words(f"a{i}"))]


async def test_the_observer_runs_in_the_background_before_the_threshold_turn(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    model = scripted_model([text(words(f"a{i}")) for i in range(6)])
    agent = Agent("a", model, memory=memory)
    observed_before_turn: list[int] = []
    for i in range(6):
        observed_before_turn.append(observer.calls)
        await agent.generate(words(f"q{i}"), thread_id="t-alice", resource_id="alice")
        await memory.wait_idle()

    per_turn = count_tokens(_turn(0))
    threshold_turn = next(i for i in range(9) if (i + 1) * per_turn > 200)
    assert observed_before_turn[threshold_turn] == 1  # done before that turn was saved
    assert observed_before_turn[: threshold_turn - 1] == [0] * (threshold_turn - 1)
    log = await store.list_observations("t-alice", **OWNER)
    assert [o.text for o in log] == [f"user said {words(f'q{i}')}" for i in range(4)]


async def test_the_model_then_sees_the_observations_and_only_unobserved_messages(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
    model = scripted_model([text("ok")])
    agent = Agent("a", model, instructions="Be brief.", memory=memory)

    await agent.generate("what next", thread_id="t-alice", resource_id="alice")

    shown = instructions(model)
    assert shown.startswith("Be brief.\n\n<observations>")
    assert "* IMPORTANT (10:00) user said q0" in shown
    assert shown.endswith(BLOCK_CLOSE)
    assert sent_texts(model) == [words("a3"), "what next"]  # the newest stays raw
    stored = await store.get_messages("t-alice", **OWNER)
    assert len(stored) == 10  # observing never deletes a message


async def test_saving_does_not_wait_for_the_observer(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.gate = asyncio.Event()
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
    await observer.started.wait()

    await memory.save(ALICE, _turn(4), model=observer.model)  # returns while it is held
    assert observer.calls == 0
    observer.gate.set()
    await memory.wait_idle()
    assert observer.calls == 1


async def test_two_concurrent_saves_of_a_thread_make_one_observer_call(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(3):
        await store.save_messages("t-alice", _turn(i), **OWNER)

    await asyncio.gather(
        memory.save(ALICE, _turn(3), model=observer.model),
        memory.save(ALICE, _turn(4), model=observer.model),
    )
    await memory.wait_idle()

    assert observer.calls == 1


async def test_a_failing_observer_keeps_the_messages_and_is_retried_on_a_later_save(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.failures_left = 1
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()

    assert observer.calls == 1
    assert memory.observational is not None
    assert memory.observational.failures == 1
    assert await store.get_observation_cursor("t-alice", **OWNER) is None
    history = await memory.history(ALICE, [], model=observer.model)
    assert len(history) == 8

    await memory.save(ALICE, _turn(4), model=observer.model)
    await memory.wait_idle()
    assert observer.calls == 2
    assert await store.get_observation_cursor("t-alice", **OWNER) is not None


async def test_far_past_the_threshold_a_run_waits_for_one_observation(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(8):  # written behind memory's back: no background job has seen them
        await store.save_messages("t-alice", _turn(i), **OWNER)

    context = await memory.context(ALICE, model=observer.model)
    history = await memory.history(ALICE, [], model=observer.model)

    assert observer.calls == 1
    assert context.instructions is not None
    assert "user said q0" in context.instructions
    assert "user said q7" in context.instructions
    assert [m.id for m in history] == [(await _last(store)).id]


async def _last(store: Store) -> AgentMessage:
    (message,) = await store.get_messages("t-alice", limit=1, **OWNER)
    assert isinstance(message, AgentMessage)
    return message


async def test_the_block_only_grows_between_reflections(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    blocks = []
    for i in range(10):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
        blocks.append((await memory.context(ALICE, model=observer.model)).instructions or "")

    assert observer.calls >= 2
    opened = [b for b in blocks if b]
    for earlier, later in itertools.pairwise(opened):
        assert later.startswith(earlier.removesuffix(BLOCK_CLOSE))


async def test_the_reflector_condenses_a_log_past_its_threshold(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer, reflect=30)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()

    assert observer.calls == 1
    assert observer.reflections == 1
    log = await store.list_observations("t-alice", **OWNER)
    assert [(o.marker, o.text) for o in log] == [("critical", "condensed history")]
    context = await memory.context(ALICE, model=observer.model)
    assert "Date: 2026-01-02\n* CRITICAL (09:30) condensed history" in (context.instructions or "")


async def test_an_observation_taken_by_another_process_is_not_written_twice(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.gate = asyncio.Event()
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
    await observer.started.wait()
    last = await _last(store)
    await store.set_observation_cursor(  # what a second process would do meanwhile
        "t-alice", MessageCursor(last.created_at, last.id), **OWNER
    )

    observer.gate.set()
    await memory.wait_idle()

    assert observer.calls == 1
    assert await store.list_observations("t-alice", **OWNER) == []


async def test_aclose_cancels_a_running_observer_and_loses_nothing(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.gate = asyncio.Event()
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
    await observer.started.wait()

    await memory.aclose()

    assert await store.get_observation_cursor("t-alice", **OWNER) is None
    assert len(await store.get_messages("t-alice", **OWNER)) == 8


async def test_threads_are_observed_separately(store: Store, make_memory: MemoryFactory) -> None:
    observer = Observer()
    memory = make_memory(observer)
    bob = ALICE.__class__("t-bob", "bob")
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
    await memory.save(bob, _turn(9), model=observer.model)
    await memory.wait_idle()

    assert observer.calls == 1
    assert await store.list_observations("t-bob", tenant_id="default", resource_id="bob") == []
    assert await store.list_observations("t-alice", tenant_id="default", resource_id="bob") == []


def test_thresholds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ObservationalConfig().observer_message_tokens == 30_000
    assert ObservationalConfig().reflector_observation_tokens == 40_000
    assert ObservationalConfig().model is None
    monkeypatch.setenv("RUNYARD_OBSERVER_MESSAGE_TOKENS", "1000")
    monkeypatch.setenv("RUNYARD_REFLECTOR_OBSERVATION_TOKENS", "2000")
    monkeypatch.setenv("RUNYARD_OBSERVER_MODEL", "runyard:demo")
    config = ObservationalConfig()
    assert (config.observer_message_tokens, config.reflector_observation_tokens) == (1000, 2000)
    assert config.model == "runyard:demo"
    assert config.buffer_tokens == 800
