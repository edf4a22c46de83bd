"""A run's journal as a transaction writes it: its row fenced at the lease epoch, then its
progress checkpoint (in ``checkpoints``, under a key of its own) and its ``tool_ledger`` rows.
``ToolLedgerPart`` writes one alone; an event-log append writes it with its events
(``LogPart``, ``GroupedEventInserts``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, select, update

from runyard.storage.errors import RunNotFound, StaleLease
from runyard.storage.records import OPEN_RUN_STATUSES, ToolCallEntry
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.schema import checkpoints, runs, tool_ledger
from runyard.storage.sql.upserts import insert_ignore, upsert

__all__ = ["fence_run", "progress_key", "write_journal"]


def progress_key(run_id: str) -> str:
    """The ``checkpoints`` key of a run's progress checkpoint."""
    return f"{run_id}#progress"


_FENCE = prepared(
    update(runs)
    .where(
        runs.c.run_id == bindparam("p_run"),
        runs.c.lease_epoch == bindparam("p_epoch"),
        runs.c.status.in_(OPEN_RUN_STATUSES),
    )
    .values(lease_epoch=runs.c.lease_epoch)
)


async def fence_run(conn: SqlConnection, run_id: str, epoch: int) -> None:
    """Hold the run's row for this transaction if it is open at ``epoch``, else raise
    (``StaleLease``; ``RunNotFound`` when unknown).

    The no-op update takes the row's lock (PostgreSQL; SQLite's write transaction holds the
    whole database), so a takeover waits for the commit or commits first and fails this."""
    held = await conn.execute(_FENCE, {"p_run": run_id, "p_epoch": epoch})
    if held.rowcount == 1:
        return
    found = (
        await conn.execute(select(runs.c.status, runs.c.lease_epoch).where(runs.c.run_id == run_id))
    ).one_or_none()
    if found is None:
        raise RunNotFound(run_id)
    raise StaleLease(
        f"run {run_id!r} is {found.status} at lease epoch {found.lease_epoch}, not {epoch}"
    )


async def write_journal(
    conn: SqlConnection,
    run_id: str,
    calls: Sequence[ToolCallEntry],
    state: dict[str, Any] | None,
    now: int,
) -> None:
    """Write the run's progress checkpoint (when ``state`` is given) and its ledger rows: a
    ``started`` one only where the call has none yet, a ``settled`` one over whatever it had."""
    dialect = conn.dialect.name
    if state is not None:
        stmt = upsert(dialect, checkpoints, ["key"], ["state", "expires_at", "updated_at"])
        row = {"key": progress_key(run_id), "state": state, "expires_at": None}
        await conn.execute(stmt, {**row, "updated_at": now})
    started = [_row(run_id, c, now) for c in calls if c.state == "started"]
    settled = [_row(run_id, c, now) for c in calls if c.state == "settled"]
    if started:
        await conn.execute(insert_ignore(dialect, tool_ledger), started)
    if settled:
        columns = ["tool_name", "state", "outcome", "updated_at"]
        await conn.execute(
            upsert(dialect, tool_ledger, ["run_id", "tool_call_id"], columns), settled
        )


def _row(run_id: str, call: ToolCallEntry, now: int) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "tool_call_id": call.tool_call_id,
        "tool_name": call.tool_name,
        "state": call.state,
        "outcome": call.outcome,
        "updated_at": now,
    }
