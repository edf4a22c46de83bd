"""Agents whose suspensions expire on a clock the test moves (never a sleep)."""

from __future__ import annotations

from collections.abc import Callable

from runyard.agent import Agent
from runyard.ids import now_ms
from runyard.memory import Memory
from runyard.service.tools import save_note
from runyard.storage import Store, StoreCheckpointStore

NOTE = '/tool save_note {"text": "buy milk"}'
"""A message the demo model answers by calling ``save_note``, which asks for approval."""
TTL = 60
"""Seconds a checkpoint lives."""


class Clock:
    """Epoch milliseconds that move only when the test says so."""

    def __init__(self) -> None:
        self.ms = now_ms()

    def __call__(self) -> int:
        return self.ms

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


def agents_on(clock: Clock) -> Callable[[Store], list[Agent]]:
    """The demo assistant with ``save_note``; its checkpoints expire ``TTL`` s on ``clock``."""

    def build(store: Store) -> list[Agent]:
        checkpoints = StoreCheckpointStore(store, ttl_seconds=TTL, clock=clock)
        return [
            Agent(
                "assistant",
                "runyard:demo",
                tools=[save_note],
                memory=Memory(store),
                checkpoint_store=checkpoints,
            )
        ]

    return build
