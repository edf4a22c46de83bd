"""How ``make test`` shares the suite between pytest-xdist workers (``-n``).

A test file is the unit of work: every test of a file runs on one worker, in file order, so a
module-scoped fixture (a ``runyard serve`` process, a database) starts once. A folder whose
files share one costly session fixture is one unit (``SHARED_FOLDERS``: tests/system's cluster
of replicas starts once). Shared folders and files with a ``slow`` test are sent first: they are
the long units, and the short ones fill the gaps at the end instead of one worker finishing a
long file alone while the other idles.

xdist's own ``--dist loadgroup`` cannot do this here: it renames each test by assigning
``item._nodeid``, which pytest 9 no longer reads, so its groups are silently ignored.
"""

from __future__ import annotations

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling

__all__ = ["SHARED_FOLDERS", "FileScheduling", "slow_units_first", "unit_of"]

SHARED_FOLDERS = ("tests/system/", "tests/faces/")
"""Folders whose tests run together on one worker: their files share a session fixture, or
(tests/faces) one ``npm ci`` into their ``node_modules``, which two workers would race."""


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its shared folder, or else its file."""
    path = nodeid.partition("::")[0]
    return next((folder for folder in SHARED_FOLDERS if path.startswith(folder)), path)


def slow_units_first(items: list[pytest.Item]) -> None:
    """Move the units with a ``slow`` test to the front; a stable sort keeps each unit's tests
    in their order, and every worker computes the same list, as xdist requires."""
    slow = {unit_of(item.nodeid) for item in items if item.get_closest_marker("slow")}
    slow.update(SHARED_FOLDERS)  # shared because what they share is costly to start
    items.sort(key=lambda item: unit_of(item.nodeid) not in slow)


class FileScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with ``unit_of`` as the scope, in collection order."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        # xdist would otherwise reorder units by test count; the order is slow_units_first's.
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)
