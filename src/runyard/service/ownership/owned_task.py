"""Stopping a background task an object owns (a heartbeat, a listener)."""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["stop_task"]


async def stop_task(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` (None: nothing runs) and wait until it is gone."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
