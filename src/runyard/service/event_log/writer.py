"""``EventWriter``: the single writer of a thread's log in this process.

Durable before visible (DESIGN.md §8): ``emit`` is synchronous and cheap — it numbers the event
and queues it; nobody can see it yet. One background task stores the queue in batches (whatever
accumulated while the previous insert ran goes in the next, so a burst of text deltas costs a
few transactions, not one each), and only once a batch is committed appends it to the channel's
tail, where readers of this process see it, and announces it on the bus to other replicas. So a
client never sees an id the store does not hold, and a process that dies loses only events
nobody saw: its successor numbers on from the store and reuses no id a client saw. ``flush``
waits until everything emitted so far is stored and visible.

The ids are also the writer's fence. Each batch takes the ids right above the writer's last
commit, and the store refuses an id it already holds (``EventIdConflict``), so a batch commits
only if nobody else wrote to the thread since. A process that lost a run's lease (it hung past
the lease and the run was taken over) can therefore only land events *before* the new owner's
first one — the taker's ``run-finish`` stays above them — and fails at its next batch once the
new owner has written; it never writes after, or between, another process's events.

A run's journal rides along (``journal``): its settled tool calls, and after a model response
its progress checkpoint with the ``started`` rows of the calls about to run, are written into
the tool ledger in the transaction of the next batch. A settled call's batch holds its
``tool-result`` or comes before it, so the call is durable before any client sees its result; a
progress checkpoint is journaled once the response's events are queued, so it is stored with
them or after them. Either way a step costs no transaction of its own for them. The ledger
rows are fenced by the run's lease epoch: a batch of an owner that was superseded is refused
whole (``StaleLease``), its run told (``lost``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

from runyard.ids import now_ms
from runyard.json_text import json_text
from runyard.observability import Metrics
from runyard.protocol import WireEvent, event_to_dict
from runyard.redaction import SecretRedactor
from runyard.runtime.flag import Flag
from runyard.service.bus import EventBus
from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.service.event_log.held_deltas import HeldDeltas
from runyard.storage import EventIdConflict, EventLogStore, LedgerWrite, StaleLease, StoredEvent

__all__ = ["EventLogWriteError", "EventWriter"]

logger = logging.getLogger(__name__)

_ATTEMPTS = 5
_RETRY_SECONDS = 10.0
"""No new attempt after this long: the store already waits for a database that is away
(``storage.sql.engine``), and a run's driver must give up well within its lease."""

Watcher = Callable[[Sequence[StoredEvent], Sequence[WireEvent | None]], None]
"""Told of every stored batch: its rows, and the event each row holds (``EventWriter.watch``)."""


class _Batch(NamedTuple):
    """A batch as stored: its rows, the text readers are sent of each, and the event each holds
    (None: only its row's data has it)."""

    rows: list[StoredEvent]
    texts: list[str]
    events: list[WireEvent | None]


class EventLogWriteError(RuntimeError):
    """Events could not be persisted (the store kept failing, or another writer took the ids)."""


class EventWriter:
    """Numbers, persists and publishes one thread's events; use it through ``EventLog.writer``.

    ``first_id`` is the id the first emitted event gets (one above the store's newest). Every
    event passes ``redactor`` before it is stored or seen, so neither the log nor a client ever
    holds a secret a tool or a model echoed.
    """

    def __init__(
        self,
        channel: ThreadChannel,
        store: EventLogStore,
        bus: EventBus,
        first_id: int,
        redactor: SecretRedactor,
        metrics: Metrics | None = None,
    ) -> None:
        self._redactor = redactor
        self._lag = (metrics or Metrics()).event_log_write_lag
        self._oldest = 0.0
        """When the oldest event of the queue was emitted (``time.perf_counter``)."""
        self._deltas = HeldDeltas(redactor)
        self._channel = channel
        self._store = store
        self._bus = bus
        self._last_id = first_id - 1
        self._stored_id = first_id - 1
        self._queue: list[tuple[int, WireEvent]] = []
        self._ledger: list[tuple[LedgerWrite, Callable[[], None]]] = []
        """Ledger writes for the next batch, each with what to call if its run's lease is lost."""
        self._ledger_given = 0
        self._ledger_stored = 0
        """How many ``journal`` calls were made, and how many of them are stored."""
        self._ready = Flag()
        self._progress = Flag()
        self._failure: EventLogWriteError | None = None
        self._closing = False
        self._watchers: list[Watcher] = []
        self._task = asyncio.create_task(self._persist_forever(), name="runyard-event-writer")

    @property
    def thread_id(self) -> str:
        return self._channel.thread_id

    @property
    def last_id(self) -> int:
        """The id of the newest event emitted here, or the store's newest when none was yet.

        Every id up to it is visible to readers once ``flush`` has returned.
        """
        return self._last_id

    def emit(self, event: WireEvent) -> int:
        """Queue ``event`` for the thread's log and return the newest id; readers see it once
        stored. A text or reasoning delta may be held back in part or whole (``HeldDeltas``)."""
        if self._failure is not None:
            raise self._failure
        self._queue_all(self._deltas.take(event))
        return self._last_id

    async def adopt(self, stored: Sequence[StoredEvent]) -> None:
        """Take events another transaction stored right above the store's end the writer was
        opened on (a run's opening, stored with its start) as the writer's first: numbered on
        from, shown here and announced like a batch of its own. This process may have heard of
        them already (a reader's listener read the store's newest id after they were stored), so
        the writer may have opened on them; anything stored above them is another writer's."""
        if not stored:
            return
        if self._queue or not stored[0].id - 1 <= self._last_id <= stored[-1].id:
            raise EventLogWriteError(f"events of {self.thread_id} were stored out of turn")
        self._last_id = stored[-1].id
        rows = list(stored)
        await self._show(_Batch(rows, [json_text(row.data) for row in rows], [None] * len(rows)))

    def journal(self, write: LedgerWrite, lost: Callable[[], None]) -> None:
        """Write ``write`` into the tool ledger with the next batch, at once: stored with or
        after every event emitted before this, and before (or with) any event emitted after
        this is visible. ``lost`` is called, and the writer fails, when the run's lease epoch
        moved on."""
        if self._failure is not None:
            raise self._failure
        self._ledger.append((write, lost))
        self._ledger_given += 1
        self._ready.set()

    def watch(self, stored: Watcher) -> None:
        """Call ``stored`` with every batch from now on, as stored, once committed (and before
        anyone sees it), and with the events its rows hold, where this writer has them (None:
        a row stored as given to ``adopt``, or changed by redaction); it must not raise."""
        self._watchers.append(stored)

    def end_of_stream(self, run_id: str, agent_id: str) -> None:
        """The agent's model call (or its whole stream) ended: queue the text its deltas still
        hold, which may be followed by nothing of the agent's own for a while (the run waits
        for its background tasks)."""
        self._queue_all(self._deltas.release(lambda held: held == (run_id, agent_id)))

    def _queue_all(self, events: list[WireEvent]) -> None:
        if events and not self._queue:
            self._oldest = time.perf_counter()
        for event in events:
            self._last_id += 1
            self._queue.append((self._last_id, event))
        self._ready.set()

    async def flush(self) -> None:
        """Return once every event emitted so far is stored and visible; raise if that failed."""
        target, journaled = self._last_id, self._ledger_given
        while (
            self._stored_id < target or self._ledger_stored < journaled
        ) and self._failure is None:
            await self._progress.wait()
        if self._failure is not None:
            raise self._failure

    async def store_last(
        self,
        events: Sequence[WireEvent],
        store: Callable[[list[StoredEvent]], Awaitable[None]],
    ) -> None:
        """Store ``events`` (with the deltas of their runs it still holds) through ``store``
        rather than a batch of its own, so they share a transaction with another write (a run's
        close): everything emitted before is stored first; these are visible once ``store`` has
        committed them. They are the writer's last: nothing is emitted after. Whatever ``store``
        raises fails the writer (it may have committed) and is raised."""
        await self.flush()
        queued = [taken for event in events for taken in self._deltas.take(event)]
        batch = []
        for event in queued:
            self._last_id += 1
            batch.append((self._last_id, event))
        last = self._rows(batch)
        try:
            await store(last.rows)
        except Exception as exc:
            self._fail(f"cannot persist events: {exc}", exc)
            raise
        await self._show(last)

    async def close(self) -> None:
        """Persist what is queued and what deltas are held, then stop the background task."""
        if self._failure is None:
            self._queue_all(self._deltas.release())
        self._closing = True
        self._ready.set()
        await asyncio.shield(self._task)

    async def _persist_forever(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            if self._ledger and not self._queue:
                # A settled call's tool-result is usually a turn of the loop away (the
                # runtime's task hands it to the segment's): let it join this transaction.
                await asyncio.sleep(0)
            batch, self._queue, oldest = self._queue, [], self._oldest
            ledger, self._ledger, given = self._ledger, [], self._ledger_given
            if (batch or ledger) and self._failure is None:
                try:
                    await self._write(batch, ledger)
                    self._ledger_stored = given
                    if batch:
                        self._lag.observe(time.perf_counter() - oldest)
                except Exception as exc:  # whatever it was, flush must not wait forever
                    self._fail(f"cannot persist events: {exc}", exc)
            elif batch or ledger:
                logger.error("thread %s: dropped %d unpersisted events", self.thread_id, len(batch))
            self._progress.set()
            self._progress = Flag()
            if self._closing and not self._queue and not self._ledger:
                return

    async def _write(
        self,
        batch: list[tuple[int, WireEvent]],
        ledger: list[tuple[LedgerWrite, Callable[[], None]]],
    ) -> None:
        """Store the batch (and ``ledger``), then make it visible here and announce it to
        other replicas."""
        stored = self._rows(batch)
        if await self._store_rows(stored.rows, ledger):
            await self._show(stored)

    def _rows(self, batch: list[tuple[int, WireEvent]]) -> _Batch:
        """The batch's rows as stored (redacted), the JSON text readers are sent, and the
        events the rows hold (None where redaction changed one: its row holds another)."""
        created = now_ms()
        stored = _Batch([], [], [])
        for i, event in batch:
            data = event_to_dict(event)
            clean = self._redactor.redact_data(data)
            stored.texts.append(json_text(clean))  # event_to_json's text, from the dict made anyway
            stored.rows.append(
                StoredEvent(self.thread_id, i, event.run_id, event.type, clean, created)
            )
            stored.events.append(event if clean is data else None)
        return stored

    async def _show(self, stored: _Batch) -> None:
        """Make the stored rows visible here and announce them to other replicas."""
        rows, texts, events = stored
        if not rows:
            return
        self._stored_id = rows[-1].id
        for watcher in self._watchers:
            watcher(rows, events)
        self._channel.append(LiveEvent(row.id, text) for row, text in zip(rows, texts, strict=True))
        try:
            await self._bus.publish(self.thread_id, self._stored_id)
        except Exception:
            # The events are stored: other replicas' readers find them at their next wake-up.
            logger.warning("thread %s: could not announce events", self.thread_id, exc_info=True)

    async def _store_rows(
        self, rows: list[StoredEvent], ledger: list[tuple[LedgerWrite, Callable[[], None]]]
    ) -> bool:
        """Insert ``rows`` (and ``ledger``) in one transaction, retrying transient failures;
        False if it failed."""
        attempt, delay, give_up = 1, 0.05, time.monotonic() + _RETRY_SECONDS
        writes = [write for write, _ in ledger]
        while True:
            try:
                if writes:
                    await self._store.append_events(self.thread_id, rows, ledger=writes)
                else:  # the common case, which every event log store takes
                    await self._store.append_events(self.thread_id, rows)
                return True
            except StaleLease as exc:
                for _, lost in ledger:
                    lost()
                self._fail(f"a run of {self.thread_id} lost its lease", exc)
                return False
            except EventIdConflict as exc:
                if attempt > 1 and await self._committed(rows):
                    return True  # the failed attempt had committed after all
                self._fail(f"another writer used ids of {self.thread_id}", exc)
                return False
            except Exception as exc:
                if attempt == _ATTEMPTS or time.monotonic() > give_up:
                    self._fail(f"cannot persist events: {exc}", exc)
                    return False
                logger.warning(
                    "thread %s: persisting events failed, retrying: %s", self.thread_id, exc
                )
                await asyncio.sleep(delay)
                attempt, delay = attempt + 1, min(delay * 2, 1.0)

    async def _committed(self, rows: list[StoredEvent]) -> bool:
        """True when the store holds exactly ``rows`` under their ids (a commit whose answer
        was lost), not another writer's events."""
        stored = await self._store.read_events(
            self.thread_id, after_id=rows[0].id - 1, limit=len(rows)
        )
        return [(e.id, e.run_id, e.type, e.data) for e in stored] == [
            (e.id, e.run_id, e.type, e.data) for e in rows
        ]

    def _fail(self, message: str, cause: Exception) -> None:
        self._failure = EventLogWriteError(message)
        self._failure.__cause__ = cause
        logger.error("thread %s: %s: %s", self.thread_id, message, cause)
