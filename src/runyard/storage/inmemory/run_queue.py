"""The run queue of the in-memory store: queued runs are the ledger's runs in status ``queued``."""

from __future__ import annotations

from dataclasses import replace

from runyard.ids import now_ms
from runyard.storage.inmemory.runs import RunLedgerPart
from runyard.storage.parts import RunQueue
from runyard.storage.records import QueuedWork, RunRecord

__all__ = ["RunQueuePart"]


class RunQueuePart(RunLedgerPart, RunQueue):
    """Queued runs wait for a worker's claim, oldest first; a claim takes the run's lease."""

    async def queue_run(
        self, run_id: str, work: QueuedWork, *, epoch: int, request_id: str | None = None
    ) -> RunRecord:
        return self._fenced_update(
            run_id,
            epoch,
            status="queued",
            queued_work=work,
            queued_request_id=request_id,
            queued_at=now_ms(),
        )

    async def claim_queued_runs(
        self, owner: str, *, limit: int, lease_until: int
    ) -> list[RunRecord]:
        queued = [r for r in self._runs.values() if r.status == "queued"]
        oldest = sorted(queued, key=lambda r: (r.queued_at or 0, r.run_id))[:limit]
        return [self._take(replace(run, status="running"), owner, lease_until) for run in oldest]
