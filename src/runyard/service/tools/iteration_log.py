"""``IterationLog``: failed attempts of delegated tasks, kept in the thread's metadata.

Sub-agents are stateless: all they know is their briefing. When a delegated task fails (the
sub-agent's run ends in an error), the attempt is recorded under the task's role in the thread's
metadata (``iterationLog``), and the next delegation of that role in the thread gets the earlier
failures appended to its briefing, so it does not repeat them. A role that succeeds starts over.
Only the last ``MAX_ATTEMPTS`` failures of a role are kept.
"""

from __future__ import annotations

from typing import Any

from runyard.ids import now_ms
from runyard.runtime import MemoryScope
from runyard.storage import Conversations

__all__ = ["ITERATION_LOG", "MAX_ATTEMPTS", "IterationLog", "task_key"]

ITERATION_LOG = "iterationLog"
"""The thread-metadata key of the log: ``{task key: [{"error": str, "at": ms}, ...]}``."""

MAX_ATTEMPTS = 5


def task_key(role: str) -> str:
    """The key of a delegated task: its role, case and spacing aside ("Researcher " = "researcher")."""
    return " ".join(role.split()).casefold()


class IterationLog:
    """The failed attempts of the delegated tasks of the thread ``scope`` names."""

    def __init__(self, threads: Conversations, scope: MemoryScope) -> None:
        self.threads = threads
        self.scope = scope

    async def failures(self, role: str) -> list[str]:
        """The errors of the earlier failed attempts of ``role``'s task, oldest first."""
        entries = (await self._log()).get(task_key(role), [])
        return [str(entry.get("error", "")) for entry in entries if isinstance(entry, dict)]

    async def record_failure(self, role: str, error: str) -> None:
        """Add a failed attempt of ``role``'s task."""
        log = await self._log()
        entries = [*log.get(task_key(role), []), {"error": error, "at": now_ms()}]
        log[task_key(role)] = entries[-MAX_ATTEMPTS:]
        await self._save(log)

    async def clear(self, role: str) -> None:
        """Forget ``role``'s attempts: its task succeeded."""
        log = await self._log()
        if log.pop(task_key(role), None) is not None:
            await self._save(log)

    async def _log(self) -> dict[str, Any]:
        thread = await self.threads.get_thread(
            self.scope.thread_id, tenant_id=self.scope.tenant_id, resource_id=self.scope.resource_id
        )
        stored = thread.metadata.get(ITERATION_LOG) if thread is not None else None
        return dict(stored) if isinstance(stored, dict) else {}

    async def _save(self, log: dict[str, Any]) -> None:
        scope = self.scope
        thread = await self.threads.get_thread(
            scope.thread_id, tenant_id=scope.tenant_id, resource_id=scope.resource_id
        )
        metadata = dict(thread.metadata) if thread is not None else {}
        if log:
            metadata[ITERATION_LOG] = log
        else:
            metadata.pop(ITERATION_LOG, None)
        await self.threads.save_thread(
            scope.thread_id,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            metadata=metadata,
        )
