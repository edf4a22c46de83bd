"""``LazyAttributes``: span attributes whose costly values are built only when read.

A model call's prompt and answer, in the GenAI conventions' message shape, cost a conversion of
the whole transcript per call; most servers record no contents, and the ``ContentGate`` drops
them unread. A telemetry implementation sees a plain read-only mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

__all__ = ["LazyAttributes"]


class LazyAttributes(Mapping[str, object]):
    """``values``, and each ``lazy`` key's value made by its function on first read."""

    __slots__ = ("_lazy", "_values")

    def __init__(
        self, values: Mapping[str, object], lazy: Mapping[str, Callable[[], object]]
    ) -> None:
        self._values = dict(values)
        self._lazy = {k: v for k, v in lazy.items() if k not in self._values}

    def __getitem__(self, key: str) -> object:
        if key in self._values:
            return self._values[key]
        value = self._values[key] = self._lazy.pop(key)()
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._values or key in self._lazy

    def __iter__(self) -> Iterator[str]:
        yield from self._values
        yield from list(self._lazy)

    def __len__(self) -> int:
        return len(self._values) + len(self._lazy)
