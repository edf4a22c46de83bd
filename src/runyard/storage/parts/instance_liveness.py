"""``InstanceLiveness``: whether the process behind an instance id is still there.

A lease says a run's driver renewed it lately; it cannot say the driver died until the lease
lapses. A backend that can tie an instance to something the operating system or the database
ends with the process says so at once: a PostgreSQL session-level advisory lock (released when
the session ends, which it does the moment the process dies), a lock on a file beside a SQLite
database (released by the kernel when the process dies). The crash sweep ends the leases of a
dead instance's runs and takes them over in seconds, the lease staying the backstop for a
process that hangs with its session open.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol, runtime_checkable

__all__ = ["InstanceLiveness"]


@runtime_checkable
class InstanceLiveness(Protocol):
    """This process's hold on its instance id, and which other instances lost theirs."""

    async def hold_instance(self, instance_id: str) -> bool:
        """Hold ``instance_id`` for as long as this process lives (and, on PostgreSQL, its
        session lasts). Idempotent: called again, it checks the hold and takes it anew if it was
        lost. False when the backend cannot hold one, or another live process holds that id."""
        ...

    async def dead_instances(self, instance_ids: Collection[str]) -> set[str]:
        """Those of ``instance_ids`` whose hold is known to be gone: their process died (or lost
        its database session). An instance this backend knows nothing of is not in it."""
        ...
