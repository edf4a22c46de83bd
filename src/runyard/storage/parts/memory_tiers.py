"""``MemoryTiers``: what memory keeps beside the history — working memory, observations, plans.

Each tier is a Protocol of its own, so the code of one tier (``PlanStore``, ``WorkingMemory``)
asks only for that tier; ``MemoryTiers`` is the three together, as a backend provides them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from runyard.storage.records import (
    MemoryScope,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    WorkingMemory,
)

__all__ = ["MemoryTiers", "ObservationTier", "PlanTier", "WorkingMemoryTier"]


@runtime_checkable
class WorkingMemoryTier(Protocol):
    """One working-memory document per user, or per thread, that the agent rewrites whole."""

    async def get_working_memory(
        self,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory | None:
        """The document for the resource, or for the thread when ``scope="thread"``."""
        ...

    async def save_working_memory(
        self,
        content: str,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory:
        """Replace the document; thread scope needs ``thread_id`` and creates the thread if missing."""
        ...


@runtime_checkable
class ObservationTier(Protocol):
    """A thread's observation log and the cursor of the last message the observer read."""

    async def append_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Add observations to the thread's log (ids are the caller's; a repeated id replaces)."""
        ...

    async def list_observations(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> list[Observation]:
        """The thread's observations, oldest first (``created_at``, then insertion order)."""
        ...

    async def replace_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Atomically swap the thread's whole observation log (what reflection does)."""
        ...

    async def condense_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        replaces: Sequence[str],
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        """Swap the observations ``replaces`` names for ``observations``, in one transaction,
        only if all of them are still in the log (what reflection does).

        Observations appended meanwhile are kept. False, with nothing written, when another
        writer condensed any of them first.
        """
        ...

    async def get_observation_cursor(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor | None:
        """The last message the observer has read, if any."""
        ...

    async def set_observation_cursor(
        self, thread_id: str, cursor: MessageCursor, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor:
        """Move the observer's cursor."""
        ...

    async def advance_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        cursor: MessageCursor,
        expected: MessageCursor | None,
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        """Append observations and move the cursor to ``cursor``, in one transaction, only if
        the cursor is still ``expected`` (None: no cursor yet).

        False, with nothing written, when another writer moved the cursor first: the
        compare-and-set that keeps two observers of one thread from both writing.
        """
        ...


@runtime_checkable
class PlanTier(Protocol):
    """One plan document per thread."""

    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        """The thread's current plan."""
        ...

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        """Replace the thread's plan."""
        ...


@runtime_checkable
class MemoryTiers(WorkingMemoryTier, ObservationTier, PlanTier, Protocol):
    """Working memory, observations and plans, each under the ownership rule of ``parts``."""
