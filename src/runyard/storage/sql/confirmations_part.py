"""Confirmations of ``SqlStore``: the questions a run waits on, each answered once."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, insert, select, update

from runyard.ids import now_ms
from runyard.storage.records import Confirmation
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import confirmations
from runyard.storage.sql.state import SqlState

__all__ = ["ConfirmationsPart"]


def _confirmation(row: Row[Any]) -> Confirmation:
    return Confirmation(
        row.request_id,
        row.thread_id,
        row.run_id,
        row.tool_call_id,
        row.payload,
        row.status,
        row.answer,
        row.created_at,
        row.answered_at,
    )


class ConfirmationsPart(SqlState):
    """Pending questions and their one answer (a conditional update decides who answered)."""

    async def create_confirmation(
        self,
        request_id: str,
        *,
        thread_id: str,
        run_id: str,
        tool_call_id: str,
        payload: dict[str, Any],
    ) -> Confirmation:
        row = Confirmation(
            request_id, thread_id, run_id, tool_call_id, payload, "pending", None, now_ms(), None
        )
        values = {
            "request_id": request_id,
            "thread_id": thread_id,
            "run_id": run_id,
            "tool_call_id": tool_call_id,
            "payload": payload,
            "status": "pending",
            "answer": None,
            "created_at": row.created_at,
            "answered_at": None,
        }
        async with write(self._engine) as conn:
            await conn.execute(insert(confirmations).values(values))
        return row

    async def get_confirmation(self, request_id: str) -> Confirmation | None:
        stmt = select(confirmations).where(confirmations.c.request_id == request_id)
        async with read(self._engine) as conn:
            row = (await conn.execute(stmt)).one_or_none()
        return None if row is None else _confirmation(row)

    async def answer_confirmation(self, request_id: str, answer: dict[str, Any]) -> bool:
        stmt = (
            update(confirmations)
            .where(confirmations.c.request_id == request_id, confirmations.c.status == "pending")
            .values(status="answered", answer=answer, answered_at=now_ms())
        )
        async with write(self._engine) as conn:
            result = await conn.execute(stmt)
        return bool(result.rowcount == 1)

    async def list_pending_confirmations(self, thread_id: str) -> list[Confirmation]:
        stmt = (
            select(confirmations)
            .where(confirmations.c.thread_id == thread_id, confirmations.c.status == "pending")
            .order_by(confirmations.c.created_at, confirmations.c.request_id)
        )
        async with read(self._engine) as conn:
            return [_confirmation(row) for row in await conn.execute(stmt)]
