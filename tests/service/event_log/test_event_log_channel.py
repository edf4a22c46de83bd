"""The channel's tail: only stored events, contiguous, bounded; it answers a cursor only when it
holds the event right after it."""

from __future__ import annotations

from runyard.service.event_log import LiveEvent, ThreadChannel


def events(*ids: int) -> list[LiveEvent]:
    return [LiveEvent(i, f'{{"n":{i}}}') for i in ids]


def test_the_tail_answers_a_cursor_only_when_it_holds_the_next_event() -> None:
    channel = ThreadChannel("t1", tail_size=3)
    channel.append(events(1, 2, 3, 4))

    assert [e.id for e in channel.after(1)] == [2, 3, 4]
    assert [e.id for e in channel.after(3)] == [4]
    assert channel.after(0) == []  # event 1 left the tail: the store has it
    assert channel.after(4) == []
    assert channel.last_id == 4


def test_a_batch_after_a_gap_starts_the_tail_over() -> None:
    channel = ThreadChannel("t1", tail_size=8)
    channel.append(events(1, 2, 3))
    channel.announce(5)  # another replica stored 4 and 5
    channel.append(events(6))

    assert channel.after(3) == []  # 4 and 5 come from the store, never skipped
    assert [e.id for e in channel.after(5)] == [6]
    assert channel.last_id == 6


async def test_an_announcement_raises_what_readers_know_is_stored() -> None:
    channel = ThreadChannel("t1", tail_size=8)
    woken = channel.wake_up()
    channel.announce(3)
    channel.announce(2)

    assert woken.done()
    assert channel.last_id == 3
    assert channel.after(0) == []
