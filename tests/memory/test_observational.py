"""Observational memory end to end: async buffering activated at the threshold, the last-resort
wait, one observer per thread, failures that lose nothing, reflection, two processes on one
thread, and the [observations][recent raw] context."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from memory_support import ALICE, Observer, instructions, sent, sent_texts, words

from runyard.agent import Agent
from runyard.memory import Memory, ObservationalConfig
from runyard.memory.observational import ObservationLog, count_tokens
from runyard.memory.observational.prompts import BLOCK_CLOSE
from runyard.messages import AgentMessage
from runyard.runtime import PiiRedaction, agent_model
from runyard.storage import MessageCursor, Observation, Store
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


async def test_the_observer_buffers_ahead_and_the_raw_block_stays_under_the_threshold(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    model = scripted_model([text(words(f"a{i}")) for i in range(12)])
    agent = Agent("a", model, memory=memory)
    calls_before_activation = None
    for i in range(12):
        await agent.generate(words(f"q{i}"), thread_id="t-alice", resource_id="alice")
        await memory.wait_idle()
        cursor = await store.get_observation_cursor("t-alice", **OWNER)
        if cursor is None:
            calls_before_activation = observer.calls

    # The observer ran before the threshold, but its work stayed out of the log until then.
    assert calls_before_activation is not None
    assert calls_before_activation >= 2
    raw = [count_tokens(sent(model, i)[:-1]) for i in range(12)]
    assert max(raw) <= 200
    assert raw[5] < raw[4]  # the threshold was crossed and the buffer activated
    assert memory.observational is not None
    assert memory.observational.waits == 0
    log = await store.list_observations("t-alice", **OWNER)
    texts = [o.text for o in log]
    assert texts[:4] == [f"user said {words(f'q{i}')}" for i in range(4)]
    assert len(texts) == len(set(texts))


async def test_the_model_then_sees_the_observations_and_only_unobserved_messages(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(5):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
    model = scripted_model([text("ok")])
    agent = Agent("a", model, instructions="Be brief.", memory=memory)

    await agent.generate("what next", thread_id="t-alice", resource_id="alice")

    shown = instructions(model)
    assert shown.startswith("Be brief.\n\n<observations>")
    assert "* IMPORTANT (10:00) user said q0" in shown
    assert shown.endswith(BLOCK_CLOSE)
    assert sent_texts(model) == [words("a4"), "what next"]  # the newest stays raw
    stored = await store.get_messages("t-alice", **OWNER)
    assert len(stored) == 12  # observing never deletes a message


async def test_a_run_crossing_the_threshold_does_not_wait_for_a_busy_observer(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(4):  # 200 tokens: at the threshold, three chunks buffered
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
    assert await store.get_observation_cursor("t-alice", **OWNER) is None
    observer.gate, observer.started = asyncio.Event(), asyncio.Event()
    await memory.save(ALICE, _turn(4), model=observer.model)
    await observer.started.wait()  # the background observer is busy with the newest messages

    context = await memory.context(ALICE, model=observer.model)
    history = await memory.history(ALICE, [], model=observer.model)

    assert memory.observational is not None
    assert memory.observational.waits == 0
    assert "user said q3" in (context.instructions or "")
    assert [m.text for m in history] == [words("a3"), words("q4"), words("a4")]
    observer.gate.set()
    await memory.wait_idle()
    # What the busy observer made continues from the activated log and waits for its turn.
    again = await memory.context(ALICE, model=observer.model)
    assert "user said q4" not in (again.instructions or "")
    cursor = await store.get_observation_cursor("t-alice", **OWNER)
    assert cursor is not None
    position = MessageCursor(cursor.message_created_at, cursor.message_id)
    assert len(memory.observational.buffer.chain(ALICE, position)) == 1


async def test_saving_does_not_wait_for_the_observer(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.gate = asyncio.Event()
    memory = make_memory(observer)
    for i in range(2):
        await memory.save(ALICE, _turn(i), model=observer.model)
    await observer.started.wait()

    await memory.save(ALICE, _turn(2), model=observer.model)  # returns while it is held
    assert observer.calls == 0
    observer.gate.set()
    await memory.wait_idle()
    assert observer.calls == 2  # the held pass, then one more for the save it absorbed


async def test_concurrent_saves_of_a_thread_never_run_two_observers_at_once(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)

    await asyncio.gather(*(memory.save(ALICE, _turn(i), model=observer.model) for i in range(8)))
    await memory.wait_idle()

    assert observer.calls >= 1
    assert observer.most_active == 1
    assert await store.get_observation_cursor("t-alice", **OWNER) is not None


async def test_a_failing_observer_keeps_the_messages_and_is_retried_on_a_later_save(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    observer.failures_left = 1
    memory = make_memory(observer)
    for i in range(2):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()

    assert observer.calls == 1
    assert memory.observational is not None
    assert memory.observational.failures == 1
    history = await memory.history(ALICE, [], model=observer.model)
    assert len(history) == 4

    for i in range(2, 5):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
    assert observer.calls >= 2
    assert await store.get_observation_cursor("t-alice", **OWNER) is not None
    texts = [o.text for o in await store.list_observations("t-alice", **OWNER)]
    assert texts[:2] == [f"user said {words('q0')}", f"user said {words('q1')}"]


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
    assert memory.observational is not None
    assert memory.observational.waits == 1
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
    for i in range(5):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()

    assert observer.reflections == 1
    log = await store.list_observations("t-alice", **OWNER)
    assert [(o.marker, o.text) for o in log] == [("critical", "condensed history")]
    context = await memory.context(ALICE, model=observer.model)
    assert "Date: 2026-01-02\n* CRITICAL (09:30) condensed history" in (context.instructions or "")


async def test_a_buffer_made_stale_by_another_process_is_never_written(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    memory = make_memory(observer)
    for i in range(4):
        await memory.save(ALICE, _turn(i), model=observer.model)
        await memory.wait_idle()
    last = await _last(store)
    await store.set_observation_cursor(  # what a second process would do meanwhile
        "t-alice", MessageCursor(last.created_at, last.id), **OWNER
    )

    await memory.save(ALICE, _turn(4), model=observer.model)
    await memory.wait_idle()
    await memory.context(ALICE, model=observer.model)

    assert await store.list_observations("t-alice", **OWNER) == []


async def test_two_processes_activating_one_thread_write_its_observations_once(
    store: Store, make_memory: MemoryFactory
) -> None:
    observer = Observer()
    first, second = make_memory(observer), make_memory(observer)
    for i in range(4):
        await first.save(ALICE, _turn(i), model=observer.model)
        await first.wait_idle()
    assert second.observational is not None
    second.observational.after_save(ALICE, observer.model)  # buffers the same messages itself
    await second.wait_idle()
    await store.save_messages("t-alice", _turn(4), **OWNER)  # past the threshold

    await asyncio.gather(
        first.context(ALICE, model=observer.model), second.context(ALICE, model=observer.model)
    )

    texts = [o.text for o in await store.list_observations("t-alice", **OWNER)]
    assert texts == [f"user said {words(f'q{i}')}" for i in range(4)]


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
        await memory.wait_idle()
    await memory.save(bob, _turn(9), model=observer.model)
    await memory.wait_idle()

    assert observer.calls == 3  # alice's turns 1-3; bob's one turn is too short on its own
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
    assert (config.buffer_tokens, config.retain_tokens, config.block_tokens) == (200, 200, 1000)


class _WriterBetweenReads:
    """A store on which another writer advances the log right after each observation listing."""

    def __init__(self, store: Store, write: Callable[[], Awaitable[object]]) -> None:
        self._store = store
        self._write: Callable[[], Awaitable[object]] | None = write

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def list_observations(self, thread_id: str, **owner: str) -> list[Observation]:
        listed = await self._store.list_observations(thread_id, **owner)
        if self._write is not None:
            write, self._write = self._write, None
            await write()
        return listed


async def test_a_snapshot_never_pairs_a_newer_cursor_with_older_observations(
    store: Store,
) -> None:
    first, second = _turn(0), _turn(1)
    await store.save_messages("t-alice", [*first, *second], **OWNER)
    start = MessageCursor(first[-1].created_at, first[-1].id)
    await store.advance_observations(
        "t-alice", [Observation("o1", "t-alice", "q0", 1)], cursor=start, expected=None, **OWNER
    )
    moved = MessageCursor(second[-1].created_at, second[-1].id)
    racing = _WriterBetweenReads(
        store,
        lambda: store.advance_observations(
            "t-alice",
            [Observation("o2", "t-alice", "q1", 2)],
            cursor=moved,
            expected=start,
            **OWNER,
        ),
    )
    log = ObservationLog(racing, ObservationalConfig(model=None))

    snapshot = await log.snapshot(ALICE)

    # Either state is fine; a mix would hide the second turn (not raw, not observed).
    assert snapshot.position == start
    assert [o.id for o in snapshot.observations] == ["o1"]


async def test_observations_activated_while_the_reflector_runs_are_kept(store: Store) -> None:
    observer = Observer()
    observer.gate = asyncio.Event()
    old = [Observation(f"o{i}", "t-alice", f"note {i} " + "word " * 10, 10 + i) for i in range(3)]
    await store.append_observations("t-alice", old, **OWNER)
    config = ObservationalConfig(model=None, reflector_observation_tokens=5)
    log = ObservationLog(store, config)
    reflecting = asyncio.create_task(log.reflect(ALICE, agent_model(observer.model)))
    started = asyncio.create_task(observer.started.wait())
    # A reflector that fails before it asks ends the wait too, and says why.
    await asyncio.wait([reflecting, started], return_when=asyncio.FIRST_COMPLETED)
    assert not reflecting.done(), reflecting.exception()

    late = [Observation("late", "t-alice", "activated meanwhile", 100)]
    assert await store.advance_observations(
        "t-alice", late, cursor=MessageCursor(100, "m-last"), expected=None, **OWNER
    )
    observer.gate.set()

    assert await reflecting
    kept = await store.list_observations("t-alice", **OWNER)
    assert [o.text for o in kept] == ["condensed history", "activated meanwhile"]


async def test_the_observer_reads_and_writes_through_the_agents_middleware(
    store: Store, make_memory: MemoryFactory
) -> None:
    """With ``PiiRedaction`` on the agent, the observer is sent ``[EMAIL]``, never the address,
    and the observation it writes keeps none (issue 28: every model call of an agent)."""
    observer = Observer()
    memory = make_memory(observer, observe=5)
    model = scripted_model([text(words(f"a{i}")) for i in range(3)])
    agent = Agent("a", model, memory=memory, middleware=[PiiRedaction()])
    for i in range(3):
        asked = f"{words(f'q{i}')} mail john.doe@example.com"
        await agent.generate(asked, thread_id="t-pii", resource_id="alice")
        await memory.wait_idle()

    assert observer.calls >= 1
    assert "john.doe" not in repr(observer.seen)
    log = await store.list_observations("t-pii", **OWNER)
    assert log
    assert any("[EMAIL]" in o.text for o in log)
    assert not any("john.doe" in o.text for o in log)
