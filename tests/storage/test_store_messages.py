"""The ``Conversations`` part, messages: ordering, idempotent upsert, pagination, isolation."""

from __future__ import annotations

import pytest

from runyard.messages import AgentMessage, CustomMessage, TextPart, ToolCallPart
from runyard.storage import Conversations, MessageCursor, ThreadOwnershipError

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}


def _msg(text: str, created_at: int, message_id: str | None = None) -> AgentMessage:
    extra = {"id": message_id} if message_id else {}
    return AgentMessage.user(text, created_at=created_at, **extra)


def _texts(messages: list[AgentMessage | CustomMessage]) -> list[str]:
    return [m.text if isinstance(m, AgentMessage) else m.type for m in messages]


async def test_messages_round_trip_with_every_field(store: Conversations) -> None:
    assistant = AgentMessage(
        role="assistant",
        parts=[TextPart(text="ok"), ToolCallPart(tool_call_id="c1", tool_name="t", args={"x": 1})],
        created_at=5,
        metadata={"k": "v"},
    )
    card = CustomMessage(type="card", data={"n": 1}, created_at=6)
    await store.save_messages("t1", [assistant, card], **ALICE)
    assert await store.get_messages("t1", **ALICE) == [assistant, card]


async def test_saving_messages_creates_the_thread_for_its_owner(store: Conversations) -> None:
    await store.save_messages("t1", [_msg("hi", 1)], **ALICE)
    thread = await store.get_thread("t1", **ALICE)
    assert thread is not None
    assert thread.resource_id == "alice"


async def test_messages_are_ordered_by_time_then_insertion(store: Conversations) -> None:
    await store.save_messages("t1", [_msg("late", 20), _msg("b", 10), _msg("c", 10)], **ALICE)
    await store.save_messages("t1", [_msg("d", 10), _msg("early", 5)], **ALICE)
    assert _texts(await store.get_messages("t1", **ALICE)) == ["early", "b", "c", "d", "late"]


async def test_upsert_replaces_in_place_and_keeps_position(store: Conversations) -> None:
    first, second, third = _msg("one", 10, "m1"), _msg("two", 10, "m2"), _msg("three", 10, "m3")
    await store.save_messages("t1", [first, second, third], **ALICE)
    await store.save_messages("t1", [_msg("TWO", 10, "m2")], **ALICE)
    await store.save_messages("t1", [_msg("TWO", 10, "m2")], **ALICE)
    assert _texts(await store.get_messages("t1", **ALICE)) == ["one", "TWO", "three"]
    assert await store.count_messages("t1", **ALICE) == 3


async def test_limit_keeps_the_last_messages_in_ascending_order(store: Conversations) -> None:
    await store.save_messages("t1", [_msg(str(i), i) for i in range(1, 6)], **ALICE)
    assert _texts(await store.get_messages("t1", limit=2, **ALICE)) == ["4", "5"]
    assert await store.get_messages("t1", limit=0, **ALICE) == []


async def test_before_is_strict_and_combines_with_limit(store: Conversations) -> None:
    await store.save_messages("t1", [_msg(str(i), i) for i in range(1, 6)], **ALICE)
    assert _texts(await store.get_messages("t1", before=4, **ALICE)) == ["1", "2", "3"]
    assert _texts(await store.get_messages("t1", before=4, limit=2, **ALICE)) == ["2", "3"]


async def test_after_cursor_is_strict_even_with_equal_timestamps(store: Conversations) -> None:
    rows = [_msg("a", 1, "ma"), _msg("b", 2, "mb"), _msg("c", 2, "mc"), _msg("d", 3, "md")]
    await store.save_messages("t1", rows, **ALICE)
    after = await store.get_messages("t1", after=MessageCursor(2, "mb"), **ALICE)
    assert _texts(after) == ["c", "d"]
    # A cursor whose message is gone resumes after its timestamp.
    gone = await store.get_messages("t1", after=MessageCursor(2, "deleted"), **ALICE)
    assert _texts(gone) == ["d"]


async def test_messages_by_ids_come_back_in_thread_order(store: Conversations) -> None:
    await store.save_messages("t1", [_msg("a", 1, "ma"), _msg("b", 2, "mb")], **ALICE)
    got = await store.get_messages_by_ids("t1", ["mb", "ma", "missing"], **ALICE)
    assert _texts(got) == ["a", "b"]


async def test_another_owner_cannot_read_or_write_messages(store: Conversations) -> None:
    await store.save_messages("t1", [_msg("secret", 1, "m1")], **ALICE)
    assert await store.get_messages("t1", **BOB) == []
    assert await store.get_messages_by_ids("t1", ["m1"], **BOB) == []
    assert await store.count_messages("t1", **BOB) == 0
    other_tenant = {"tenant_id": "globex", "resource_id": "alice"}
    assert await store.get_messages("t1", **other_tenant) == []
    with pytest.raises(ThreadOwnershipError):
        await store.save_messages("t1", [_msg("overwrite", 1, "m1")], **BOB)
    assert _texts(await store.get_messages("t1", **ALICE)) == ["secret"]


async def test_same_message_id_in_two_threads_stays_separate(store: Conversations) -> None:
    await store.save_messages("t1", [_msg("alice", 1, "m1")], **ALICE)
    await store.save_messages("t2", [_msg("bob", 1, "m1")], **BOB)
    assert _texts(await store.get_messages("t1", **ALICE)) == ["alice"]
    assert _texts(await store.get_messages("t2", **BOB)) == ["bob"]
