"""``GroupedEventInserts``: SQLite event-log appends of many threads in one transaction.

SQLite has one writer at a time, and each event-log batch used to be a transaction of its own:
with a thousand threads streaming, thousands of small transactions a second, each several round
trips to the driver's thread, were most of the server's CPU per delta (docs/benchmarks.md).
Here the appends of one turn of the event loop share a transaction: one task writes for all of
them, started at the loop's next turn, once the other writers woken in this turn have appended
too; what arrives while it writes goes into its next transaction. SQLite's statements run on the
loop's own thread (``inline_sqlite``), so a transaction never lets another writer in while it
runs: grouping only what arrived during one, each append was a transaction of its own (a BEGIN
and a COMMIT per delta, a sixth of the server's CPU at 1,000 streams, docs/benchmarks.md). A
lone writer waits one turn of an otherwise idle loop. An append that carries a run's journal
(``LedgerWrite``: a step's progress checkpoint and tool calls) joins the appends waiting for the
next transaction, its run fenced and its journal written in it with its rows, as
``append_events`` promises; with none waiting it is written at once, since the run's step waits
for it.

Each caller still returns only once its rows are committed (durable before visible), and a
thread has one writer that awaits each append before the next, so per-thread order holds. When
a grouped transaction fails, nothing of it was committed, and every member is written again on
its own: one thread's id conflict (``IntegrityError``), one run's lost lease (``StaleLease``) or
a passing error reaches only the caller it belongs to, exactly as without grouping.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.ids import now_ms
from runyard.storage.records import LedgerWrite
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import write
from runyard.storage.sql.journal_writes import fence_run, write_journal
from runyard.storage.sql.schema import events

__all__ = ["INSERT_EVENTS", "GroupedEventInserts"]

INSERT_EVENTS = prepared(insert(events))
"""The insert of ``events`` rows (``event_rows``), whoever writes them."""

_Rows = Sequence[Mapping[str, Any]]


@dataclass
class _Waiting:
    rows: _Rows
    ledger: Sequence[LedgerWrite]
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class GroupedEventInserts:
    """Inserts ``events`` rows; the appends of one loop turn, or made while a transaction is
    written, share a transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._waiting: list[_Waiting] = []
        self._writing: asyncio.Task[None] | None = None
        """The task writing the appends that waited (held so it is not collected); while it
        runs, a new append only joins the list."""

    async def insert(self, rows: _Rows, ledger: Sequence[LedgerWrite] = ()) -> None:
        """Commit ``rows`` with ``ledger`` (each run fenced at its epoch, then its journal
        written); raises what writing them alone would (``IntegrityError``, ``StaleLease``, …)."""
        if ledger and not self._waiting:
            # A run's step waits on its journal: with no append of this turn to share a
            # transaction with, it is written at once rather than a turn later.
            await self._insert([(rows, ledger)])
            return
        waiting = _Waiting(rows, ledger)
        self._waiting.append(waiting)
        if self._writing is None or self._writing.done():
            # The task starts at the loop's next turn: the appends of this turn join ours. It
            # writes for everyone, so a caller that stops waiting strands nobody else's rows.
            self._writing = asyncio.create_task(self._write_waiting(), name="runyard-event-rows")
        await waiting.done

    async def _write_waiting(self) -> None:
        group: list[_Waiting] = []
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                await self._write_group(group)
        finally:
            # Only when cancelled (the loop closing) is anyone left: nobody may wait forever.
            for waiting in [*group, *self._waiting]:
                if not waiting.done.done():
                    waiting.done.set_exception(RuntimeError("the event writer stopped"))
            self._waiting = []

    async def _write_group(self, group: list[_Waiting]) -> None:
        error = await _outcome(self._insert([(w.rows, w.ledger) for w in group]))
        if error is not None and len(group) > 1:
            for waiting in group:  # nothing was committed: each on its own, as if alone
                _finish(waiting, await _outcome(self._insert([(waiting.rows, waiting.ledger)])))
            return
        for waiting in group:
            _finish(waiting, error)

    async def _insert(self, appends: Sequence[tuple[_Rows, Sequence[LedgerWrite]]]) -> None:
        async with write(self._engine) as conn:
            now = now_ms()
            for _, ledger in appends:
                for journaled in ledger:  # a stale owner's append is refused whole
                    await fence_run(conn, journaled.run_id, journaled.epoch)
                    await write_journal(
                        conn, journaled.run_id, journaled.calls, journaled.state, now
                    )
            rows = [row for rows, _ in appends for row in rows]
            if rows:
                await conn.execute(INSERT_EVENTS, rows)


async def _outcome(attempt: Awaitable[None]) -> Exception | None:
    try:
        await attempt
    except Exception as exc:
        return exc
    return None


def _finish(waiting: _Waiting, error: Exception | None) -> None:
    """Return to ``waiting``'s caller, or raise ``error`` there, unless it stopped waiting."""
    if waiting.done.done():
        return
    if error is None:
        waiting.done.set_result(None)
    else:
        waiting.done.set_exception(error)
