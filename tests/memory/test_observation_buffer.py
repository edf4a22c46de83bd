"""``ObservationBuffer``: a chain of buffered chunks is only ever used from where it starts, and
``ObservationalConfig`` refuses ratios that would leave nothing to buffer before the threshold."""

from __future__ import annotations

import pytest
from memory_support import ALICE

from runyard.errors import ConfigurationError
from runyard.memory import ObservationalConfig
from runyard.memory.observational.buffer import BufferedChunk, ObservationBuffer
from runyard.runtime import MemoryScope
from runyard.storage import MessageCursor, Observation

A, B, C = MessageCursor(10, "a"), MessageCursor(20, "b"), MessageCursor(30, "c")


def _chunk(after: MessageCursor | None, until: MessageCursor) -> BufferedChunk:
    note = Observation(f"obs-{until.message_id}", ALICE.thread_id, "noted", until.created_at)
    return BufferedChunk(after, until, (note,))


def test_chunks_chain_from_the_cursor_and_the_next_starts_where_the_chain_ends() -> None:
    buffer = ObservationBuffer()
    assert buffer.chain(ALICE, None) == []
    assert buffer.add(ALICE, None, _chunk(None, A))
    assert buffer.add(ALICE, None, _chunk(A, B))

    assert [c.until for c in buffer.chain(ALICE, None)] == [A, B]


def test_a_chunk_that_does_not_continue_the_chain_is_refused() -> None:
    buffer = ObservationBuffer()
    buffer.add(ALICE, None, _chunk(None, A))

    assert not buffer.add(ALICE, None, _chunk(B, C))  # a gap: B is not where the chain ends
    assert not buffer.add(ALICE, None, _chunk(None, B))  # overlaps the first chunk
    assert [c.until for c in buffer.chain(ALICE, None)] == [A]


def test_a_reader_with_another_cursor_sees_no_chain_and_leaves_it_alone() -> None:
    buffer = ObservationBuffer()
    buffer.add(ALICE, None, _chunk(None, A))
    buffer.add(ALICE, None, _chunk(A, B))

    assert buffer.chain(ALICE, C) == []  # a cursor read elsewhere, or later
    assert [c.until for c in buffer.chain(ALICE, None)] == [A, B]


def test_a_chunk_from_a_newer_cursor_replaces_a_stale_chain() -> None:
    buffer = ObservationBuffer()
    buffer.add(ALICE, None, _chunk(None, A))

    assert buffer.add(ALICE, B, _chunk(B, C))  # someone else moved the cursor to B

    assert buffer.chain(ALICE, None) == []
    assert [c.until for c in buffer.chain(ALICE, B)] == [C]


def test_only_the_most_recently_extended_threads_keep_a_chain() -> None:
    buffer = ObservationBuffer(threads=2)
    scopes = [MemoryScope(f"t{i}", "alice") for i in range(3)]
    buffer.add(scopes[0], None, _chunk(None, A))
    buffer.add(scopes[1], None, _chunk(None, A))
    buffer.add(scopes[0], None, _chunk(A, B))  # t0 is now the most recent
    buffer.add(scopes[2], None, _chunk(None, A))

    assert [len(buffer.chain(scope, None)) for scope in scopes] == [2, 0, 1]


def test_discarding_activated_chunks_keeps_the_ones_that_follow() -> None:
    buffer = ObservationBuffer()
    buffer.add(ALICE, None, _chunk(None, A))
    buffer.add(ALICE, None, _chunk(A, B))

    buffer.discard(ALICE, 1)  # the first chunk was activated: the cursor is now A

    assert [c.until for c in buffer.chain(ALICE, A)] == [B]
    buffer.discard(ALICE, 1)
    assert buffer.chain(ALICE, B) == []
    assert buffer.add(ALICE, B, _chunk(B, C))


@pytest.mark.parametrize(
    "ratios",
    [
        {"buffer_ratio": 0.0},
        {"buffer_ratio": 1.5},
        {"block_ratio": 0.9},
        {"retain_ratio": -0.1},
        {"buffer_ratio": 0.5, "retain_ratio": 0.6},
    ],
)
def test_ratios_that_cannot_work_are_refused(ratios: dict[str, float]) -> None:
    with pytest.raises(ConfigurationError):
        ObservationalConfig(model=None, **ratios)
