"""The ``Confirmations`` part: answered exactly once, even when answers race."""

from __future__ import annotations

import asyncio

from store_parts import assert_implements

from runyard.storage import Confirmations


async def _create(store: Confirmations, request_id: str, thread_id: str = "t1") -> None:
    await store.create_confirmation(
        request_id, thread_id=thread_id, run_id="r1", tool_call_id="c1", payload={"tool": "x"}
    )


async def test_every_backend_is_a_confirmations_part(store: Confirmations) -> None:
    assert_implements(store, Confirmations)


async def test_a_confirmation_is_pending_until_answered(store: Confirmations) -> None:
    await _create(store, "q1")
    pending = await store.get_confirmation("q1")
    assert pending is not None
    assert (pending.status, pending.answer, pending.payload) == ("pending", None, {"tool": "x"})
    assert await store.answer_confirmation("q1", {"approved": True})
    answered = await store.get_confirmation("q1")
    assert answered is not None
    assert (answered.status, answered.answer) == ("answered", {"approved": True})
    assert answered.answered_at is not None


async def test_a_second_answer_is_refused_and_changes_nothing(store: Confirmations) -> None:
    await _create(store, "q1")
    assert await store.answer_confirmation("q1", {"approved": True})
    assert not await store.answer_confirmation("q1", {"approved": False})
    answered = await store.get_confirmation("q1")
    assert answered is not None
    assert answered.answer == {"approved": True}
    assert not await store.answer_confirmation("unknown", {"approved": True})


async def test_racing_answers_have_exactly_one_winner(store: Confirmations) -> None:
    await _create(store, "q1")
    results = await asyncio.gather(
        *(store.answer_confirmation("q1", {"approved": i % 2 == 0}) for i in range(6))
    )
    assert sorted(results) == [False] * 5 + [True]


async def test_pending_confirmations_are_listed_per_thread(store: Confirmations) -> None:
    await _create(store, "q1")
    await _create(store, "q2")
    await _create(store, "q3", thread_id="t2")
    await store.answer_confirmation("q1", {"approved": True})
    assert [c.request_id for c in await store.list_pending_confirmations("t1")] == ["q2"]
    assert [c.request_id for c in await store.list_pending_confirmations("t2")] == ["q3"]
