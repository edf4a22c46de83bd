"""``OwedEndings``: endings of runs nothing drives any more, tried until they succeed.

A run this process holds is ended by this process: no sweep would touch it while its lease is
renewed. So an ending that failed (the database was away, say) is kept and retried on every
heartbeat until it succeeds or someone else has ended or taken the run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from runyard.storage import StaleLease

__all__ = ["Ending", "OwedEndings"]

logger = logging.getLogger(__name__)

Ending = Callable[[], Awaitable[None]]
"""Ends one run (finishes or closes it, or carries it on); safe to call again after a failure."""


class OwedEndings:
    """Run id → the ending that failed, to try again."""

    def __init__(self) -> None:
        self._owed: dict[str, Ending] = {}

    async def end(self, run_id: str, ending: Ending) -> None:
        """Run ``ending``; kept for ``retry`` when it fails."""
        try:
            await ending()
        except StaleLease:
            pass  # closed already, or taken over: someone else ends it
        except Exception:
            logger.exception("run %s: ending it failed; the heartbeat retries", run_id)
            self._owed[run_id] = ending
            return
        self._owed.pop(run_id, None)

    async def retry(self) -> None:
        """Try every ending that failed once more (the heartbeat's first task)."""
        for run_id, ending in list(self._owed.items()):
            await self.end(run_id, ending)
