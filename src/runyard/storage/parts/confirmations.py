"""``Confirmations``: questions a suspended run asks, each answered at most once."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from runyard.storage.records import Confirmation

__all__ = ["Confirmations"]


@runtime_checkable
class Confirmations(Protocol):
    """Pending questions keyed by request id; answering is one conditional write."""

    async def create_confirmation(
        self,
        request_id: str,
        *,
        thread_id: str,
        run_id: str,
        tool_call_id: str,
        payload: dict[str, Any],
    ) -> Confirmation:
        """Record a pending question."""
        ...

    async def get_confirmation(self, request_id: str) -> Confirmation | None:
        """The confirmation, pending or answered."""
        ...

    async def answer_confirmation(self, request_id: str, answer: dict[str, Any]) -> bool:
        """Pending -> answered, exactly once: True for the one caller that answered it, False
        when it was already answered or does not exist."""
        ...

    async def list_pending_confirmations(self, thread_id: str) -> list[Confirmation]:
        """The thread's unanswered confirmations, oldest first."""
        ...
