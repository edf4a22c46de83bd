"""The pair of buses a contract test runs on."""

from __future__ import annotations

from dataclasses import dataclass

from runyard.service.bus import EventBus


@dataclass
class Replicas:
    """Where events are announced and where they are awaited (two processes, for Redis)."""

    publisher: EventBus
    subscriber: EventBus
