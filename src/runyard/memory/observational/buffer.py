"""``ObservationBuffer``: observations computed ahead of the threshold, waiting to be activated.

The observer runs in the background on each new stretch of messages and its result is kept here
(not in the store) as a chain of chunks, each starting where the one before ends. Crossing the
threshold then only has to activate the chain: one compare-and-set write, no model call. A chunk
is valid only while the thread's cursor is where the chain starts; when anything else moved the
cursor (a run that had to observe itself, another process), the chain is dropped, and so is a
chunk that arrives for a chain that no longer exists. The buffer lives in the process that
computed it: another process serving the same thread has its own, or none.
"""

from __future__ import annotations

from dataclasses import dataclass

from runyard.runtime import MemoryScope
from runyard.storage import MessageCursor, Observation

__all__ = ["BufferedChunk", "ObservationBuffer"]


@dataclass(frozen=True, slots=True)
class BufferedChunk:
    """Observations of the messages after ``after`` up to and including ``until``."""

    after: MessageCursor | None
    until: MessageCursor
    observations: tuple[Observation, ...]


class ObservationBuffer:
    """Per thread, the chain of buffered chunks that continues from the thread's cursor.

    At most ``threads`` threads keep a chain; past that the least recently extended is
    forgotten (which costs that thread, at worst, one wait when it crosses its threshold).
    """

    def __init__(self, threads: int = 1024) -> None:
        self._chains: dict[MemoryScope, list[BufferedChunk]] = {}
        self._threads = threads

    def chain(self, scope: MemoryScope, cursor: MessageCursor | None) -> list[BufferedChunk]:
        """The chunks that continue from ``cursor``; none when the chain starts elsewhere.

        A chain that does not start at ``cursor`` is left alone: the caller's cursor may be the
        stale one (read just before the job activated the chain). ``add`` replaces a chain that
        is really stale.
        """
        chain = self._chains.get(scope, [])
        return list(chain) if chain and chain[0].after == cursor else []

    def add(self, scope: MemoryScope, cursor: MessageCursor | None, chunk: BufferedChunk) -> bool:
        """Keep ``chunk`` if it continues the chain from ``cursor`` (the thread's cursor as just
        read), or starts a new chain at it; False when the chunk is stale."""
        chain = self.chain(scope, cursor)
        if chunk.after != (chain[-1].until if chain else cursor):
            return False
        self._chains.pop(scope, None)  # re-inserted last: the most recently extended
        self._chains[scope] = [*chain, chunk]
        if len(self._chains) > self._threads:
            del self._chains[next(iter(self._chains))]
        return True

    def discard(self, scope: MemoryScope, count: int) -> None:
        """Forget the chain's first ``count`` chunks (activated); later ones continue from them."""
        rest = self._chains.get(scope, [])[count:]
        if rest:
            self._chains[scope] = rest
        else:
            self._chains.pop(scope, None)

    def drop(self, scope: MemoryScope) -> None:
        """Forget the thread's chain (someone else moved the cursor)."""
        self._chains.pop(scope, None)
