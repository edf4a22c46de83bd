"""Deleting expired checkpoints: suspended runs nobody answered within the checkpoint TTL."""

from __future__ import annotations

import asyncio
import logging

from runyard.ids import now_ms
from runyard.storage import Checkpoints

__all__ = ["SWEEP_EVERY_SECONDS", "sweep_checkpoints", "sweep_expired"]

logger = logging.getLogger(__name__)

SWEEP_EVERY_SECONDS = 3600.0


async def sweep_expired(store: Checkpoints) -> int:
    """Delete the checkpoints whose time is up now; how many went. A failure is only logged."""
    try:
        swept = await store.sweep_expired_checkpoints(now_ms())
    except Exception:
        logger.exception("sweeping expired checkpoints failed; the next sweep retries")
        return 0
    if swept:
        logger.info("swept %d expired checkpoint(s)", swept)
    return swept


async def sweep_checkpoints(store: Checkpoints, *, every: float = SWEEP_EVERY_SECONDS) -> None:
    """Sweep every ``every`` seconds until cancelled (the server sweeps once at start-up too)."""
    while True:
        await asyncio.sleep(every)
        await sweep_expired(store)
