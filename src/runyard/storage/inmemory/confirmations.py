"""Confirmations of the in-memory store."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from runyard.ids import now_ms
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import Confirmations
from runyard.storage.records import Confirmation

__all__ = ["ConfirmationsPart"]


class ConfirmationsPart(MemoryState, Confirmations):
    """Pending questions by request id; each is answered at most once."""

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
            request_id,
            thread_id,
            run_id,
            tool_call_id,
            copy.deepcopy(payload),
            "pending",
            None,
            now_ms(),
            None,
        )
        self._confirmations[request_id] = row
        return copy.deepcopy(row)

    async def get_confirmation(self, request_id: str) -> Confirmation | None:
        return copy.deepcopy(self._confirmations.get(request_id))

    async def answer_confirmation(self, request_id: str, answer: dict[str, Any]) -> bool:
        row = self._confirmations.get(request_id)
        if row is None or row.status != "pending":
            return False
        self._confirmations[request_id] = replace(
            row, status="answered", answer=copy.deepcopy(answer), answered_at=now_ms()
        )
        return True

    async def list_pending_confirmations(self, thread_id: str) -> list[Confirmation]:
        rows = [
            c
            for c in self._confirmations.values()
            if c.thread_id == thread_id and c.status == "pending"
        ]
        return copy.deepcopy(sorted(rows, key=lambda c: (c.created_at, c.request_id)))
