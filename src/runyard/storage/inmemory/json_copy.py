"""``json_copy``, and the records made of it: the in-memory store's copy of the JSON data it keeps and hands out.

The store copies what it is given and what it returns, so no caller sees another's mutation, as
none would with a database. What it copies is JSON-shaped (event payloads, checkpoints, metadata),
and ``copy.deepcopy``'s generality (a memo of every object, a dispatch per value) cost 3-4 times
a walk of dicts and lists: ~8% of a run's CPU on ``memory://`` (docs/benchmarks.md).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, TypeVar

from runyard.storage.records import Thread, ToolCallEntry

__all__ = ["entry_copy", "json_copy", "thread_copy"]

T = TypeVar("T")

_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def json_copy(value: T) -> T:
    """A deep copy of ``value``: dicts and lists walked, immutable scalars shared, anything
    else ``copy.deepcopy``'d."""
    return _copy(value)  # type: ignore[no-any-return]


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


def thread_copy(thread: Thread) -> Thread:
    return replace(thread, metadata=_copy(thread.metadata))


def entry_copy(entry: ToolCallEntry) -> ToolCallEntry:
    return replace(entry, outcome=_copy(entry.outcome))
