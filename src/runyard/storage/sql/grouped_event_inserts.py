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

A run's start and its close (``RunsPart``) join the next shared transaction too, whatever is
waiting (``run``): each was a transaction of its own, and SQLite's commits were the largest
share of a run's storage work (the race went from 4.1 to 2.0 write transactions a run at 10
threads, docs/benchmarks.md). Their bodies run after the group's event rows, in the order they
came. A caller cancelled while its body waits is still written for, so it is told the outcome
first and its cancellation is delivered again at its next await: as before, when the body ran
without suspending, a start cut off after it was written is finished by the caller's own
handling (``RunManager.start``), never left open with nobody to drive it.

Each caller still returns only once its rows are committed (durable before visible), and a
thread has one writer that awaits each append before the next, so per-thread order holds. When
a grouped transaction fails, nothing of it was committed, and every member is written again on
its own: one thread's id conflict (``IntegrityError``), one run's lost lease (``StaleLease``), a
refused start or a passing error reaches only the caller it belongs to, exactly as without
grouping.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.ids import now_ms
from runyard.storage.records import LedgerWrite
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import write
from runyard.storage.sql.journal_writes import fence_run, write_journal
from runyard.storage.sql.schema import events

__all__ = ["INSERT_EVENTS", "GroupedEventInserts"]

INSERT_EVENTS = prepared(insert(events))
"""The insert of ``events`` rows (``event_rows``), whoever writes them."""

_Rows = Sequence[Mapping[str, Any]]
_T = TypeVar("_T")
_Body = Callable[[SqlConnection], Awaitable[Any]]


@dataclass
class _Waiting:
    rows: _Rows = ()
    ledger: Sequence[LedgerWrite] = ()
    body: _Body | None = None
    done: asyncio.Future[Any] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class GroupedEventInserts:
    """Inserts ``events`` rows, and runs a run's start and close; the writes of one loop turn,
    or made while a transaction is written, share a transaction."""

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
            await self._insert([_Waiting(rows, ledger)])
            return
        waiting = _Waiting(rows, ledger)
        self._enqueue(waiting)
        await waiting.done

    async def run(self, body: Callable[[SqlConnection], Awaitable[_T]]) -> _T:
        """``body``'s result, run in the next shared transaction (after its event rows); raises
        what ``body`` raises when run alone. A caller cancelled meanwhile gets the outcome, and
        its cancellation again at its next await (see the module's doc)."""
        waiting = _Waiting(body=body)
        self._enqueue(waiting)
        try:
            result: _T = await asyncio.shield(waiting.done)
        except asyncio.CancelledError:
            result = await _outcome_then_cancelled(waiting.done)
        return result

    def _enqueue(self, waiting: _Waiting) -> None:
        self._waiting.append(waiting)
        if self._writing is None or self._writing.done():
            # The task starts at the loop's next turn: the appends of this turn join ours. It
            # writes for everyone, so a caller that stops waiting strands nobody else's rows.
            self._writing = asyncio.create_task(self._write_waiting(), name="runyard-event-rows")

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
        results, error = await _outcome(self._insert(group))
        if error is not None and len(group) > 1:
            for waiting in group:  # nothing was committed: each on its own, as if alone
                alone, error = await _outcome(self._insert([waiting]))
                _finish(waiting, alone[0] if alone else None, error)
            return
        for waiting, result in zip(group, results or [None] * len(group), strict=True):
            _finish(waiting, result, error)

    async def _insert(self, group: Sequence[_Waiting]) -> list[Any]:
        """Write ``group`` in one transaction; each member's result (its body's, else None)."""
        async with write(self._engine) as conn:
            now = now_ms()
            for waiting in group:
                for journaled in waiting.ledger:  # a stale owner's append is refused whole
                    await fence_run(conn, journaled.run_id, journaled.epoch)
                    await write_journal(
                        conn, journaled.run_id, journaled.calls, journaled.state, now
                    )
            rows = [row for waiting in group for row in waiting.rows]
            if rows:
                await conn.execute(INSERT_EVENTS, rows)
            return [None if w.body is None else await w.body(conn) for w in group]


async def _outcome_then_cancelled(done: asyncio.Future[Any]) -> Any:
    """``done``'s outcome, waited for through the cancellations the current task receives (one
    came already); the task is then cancelled once more, which its next await raises."""
    task = asyncio.current_task()
    assert task is not None
    received = 1
    while not done.done():
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            received += 1
    for _ in range(received):
        task.uncancel()
    task.cancel()
    return done.result()


async def _outcome(attempt: Awaitable[list[Any]]) -> tuple[list[Any], Exception | None]:
    try:
        return await attempt, None
    except Exception as exc:
        return [], exc


def _finish(waiting: _Waiting, result: Any, error: Exception | None) -> None:
    """Return ``result`` to ``waiting``'s caller, or raise ``error`` there, unless it stopped
    waiting."""
    if waiting.done.done():
        return
    if error is None:
        waiting.done.set_result(result)
    else:
        waiting.done.set_exception(error)
