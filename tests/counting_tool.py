"""A tool function that counts its executions, and can hang to play a process that dies."""

from __future__ import annotations

import asyncio


class Counter:
    """A tool's executions: ``started`` counts every call that began, ``done`` those that
    returned; ``hang`` makes the next calls block until cancelled (the process "dies")."""

    def __init__(self) -> None:
        self.started = 0
        self.done = 0
        self.hang = False
        self.blocked = asyncio.Event()

    async def run(self, item: str) -> str:
        self.started += 1
        if self.hang:
            self.blocked.set()
            await asyncio.sleep(3600)
        self.done += 1
        return f"did {item}"
