"""The event log of ``SqlStore``: append-only rows per thread, numbered by the writer."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Select, Text, bindparam, cast, func, select, type_coerce
from sqlalchemy.exc import IntegrityError

from runyard.ids import now_ms
from runyard.storage.errors import EventIdConflict
from runyard.storage.records import LedgerWrite, StoredEvent
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import read_one, write, write_one
from runyard.storage.sql.grouped_event_inserts import INSERT_EVENTS
from runyard.storage.sql.journal_writes import fence_run, write_journal
from runyard.storage.sql.schema import events
from runyard.storage.sql.state import SqlState

__all__ = ["LogPart", "event_rows"]


def event_rows(
    events_: Sequence[StoredEvent], thread_id: str | None = None
) -> list[dict[str, Any]]:
    """The ``events`` rows of ``events_``, in ``thread_id`` (default: each event's own)."""
    return [
        {
            "thread_id": e.thread_id if thread_id is None else thread_id,
            "id": e.id,
            "run_id": e.run_id,
            "type": e.type,
            "data": e.data,
            "created_at": e.created_at,
        }
        for e in events_
    ]


@cache
def _event_json(dialect: str, *, limited: bool) -> Select[tuple[int, str]]:
    """Events after an id with their data as text: no JSON decoding per row (PostgreSQL renders
    JSONB as text). Every stream reads through it; built once (``prepared``)."""
    postgres = dialect == "postgresql"
    as_text = cast(events.c.data, Text) if postgres else type_coerce(events.c.data, Text)
    stmt = (
        select(events.c.id, as_text)
        .where(events.c.thread_id == bindparam("p_thread"), events.c.id > bindparam("p_after"))
        .order_by(events.c.id)
    )
    return prepared(stmt.limit(bindparam("p_limit")) if limited else stmt)


class LogPart(SqlState):
    """Replayable per-thread events."""

    async def append_events(
        self,
        thread_id: str,
        events_: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        if not events_ and not ledger:
            return
        rows = event_rows(events_, thread_id)
        try:
            if self._engine.dialect.name == "sqlite":
                # SQLite writes one transaction at a time: share it with other threads' appends.
                await self._event_rows.insert(rows, ledger)
                return
            if not ledger:  # one statement (executemany: all rows or none), no BEGIN/COMMIT
                await write_one(self._engine, INSERT_EVENTS, rows)
                return
            async with write(self._engine) as conn:
                now = now_ms()
                for journaled in ledger:  # fenced first: a stale owner's batch is refused whole
                    await fence_run(conn, journaled.run_id, journaled.epoch)
                    await write_journal(
                        conn, journaled.run_id, journaled.calls, journaled.state, now
                    )
                if rows:
                    await conn.execute(INSERT_EVENTS, rows)
        except IntegrityError as exc:
            raise EventIdConflict(f"event id reused in thread {thread_id!r}") from exc

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        stmt = (
            select(events)
            .where(events.c.thread_id == thread_id, events.c.id > after_id)
            .order_by(events.c.id)
            .limit(limit)
        )
        return [
            StoredEvent(r.thread_id, r.id, r.run_id, r.type, r.data, r.created_at)
            for r in await read_one(self._engine, stmt)
        ]

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        stmt = _event_json(self._engine.dialect.name, limited=limit is not None)
        values = {"p_thread": thread_id, "p_after": after_id, "p_limit": limit}
        return [(int(i), str(text)) for i, text in await read_one(self._engine, stmt, values)]

    async def last_event_id(self, thread_id: str) -> int:
        stmt = select(func.max(events.c.id)).where(events.c.thread_id == thread_id)
        return int((await read_one(self._engine, stmt)).scalar_one() or 0)
