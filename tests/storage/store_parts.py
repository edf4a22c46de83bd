"""What it takes to be a storage part: every member its Protocol declares, with the same shape.

``isinstance`` against a runtime-checkable Protocol only asks whether the names exist. So
``assert_implements`` also compares each member with the Protocol's: a property where it
declares one, async where it is async, and the same parameters — order, kind, name, default —
except that a positional-only parameter may have any name. Types are mypy's job.
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

__all__ = ["assert_implements", "part_members"]

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def part_members(part: type) -> set[str]:
    """The public names ``part`` declares, with those of the parts it extends."""
    return {
        name
        for cls in part.__mro__
        if cls.__module__.startswith("runyard.storage.")
        for name in vars(cls)
        if not name.startswith("_")
    }


def assert_implements(implementation: object, part: type) -> None:
    """``implementation`` (an instance, or a class) provides every member of ``part``."""
    cls = implementation if isinstance(implementation, type) else type(implementation)
    if cls is not implementation:
        assert isinstance(implementation, part), f"{cls.__name__} is no {part.__name__}"
    problems = [m for name in sorted(part_members(part)) if (m := _mismatch(cls, part, name))]
    assert not problems, f"{cls.__name__} is no {part.__name__}: " + "; ".join(problems)


def _mismatch(cls: type, part: type, name: str) -> str | None:
    owner = next((c for c in cls.__mro__ if name in vars(c)), None)
    if owner is None or Protocol in owner.__bases__:
        return f"{name} is missing"  # a Protocol's own stub is no implementation
    actual, declared = vars(owner)[name], inspect.getattr_static(part, name)
    if isinstance(declared, property) or isinstance(actual, property):
        same_kind = isinstance(declared, property) == isinstance(actual, property)
        return None if same_kind else f"{name} is a property in one and not the other"
    if inspect.iscoroutinefunction(actual) != inspect.iscoroutinefunction(declared):
        return f"{name} is async in one and not the other"
    want, have = inspect.signature(declared), inspect.signature(actual)
    free = {i for i, p in enumerate(want.parameters.values()) if p.kind is p.POSITIONAL_ONLY}
    if _shape(want, free) == _shape(have, free):
        return None
    return f"{name}{have} where {part.__name__} has {name}{want}"


def _shape(signature: inspect.Signature, free: set[int]) -> list[tuple[Any, ...]]:
    """Each parameter as (kind, name, default); the name is left out at the ``free`` places."""
    return [
        ("positional", p.default)
        if i in free and p.kind in _POSITIONAL
        else (p.kind, p.name, p.default)
        for i, p in enumerate(signature.parameters.values())
    ]
