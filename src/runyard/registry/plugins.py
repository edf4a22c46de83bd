"""``discover_plugins``: runyard's own builders plus those installed packages declare.

A package adds a builder by declaring an entry point in the group (``runyard.tools``,
``runyard.middleware``) whose name is the builder's name and whose object is the builder, or a
class or function that makes one with no arguments; installing the package is enough. A broken
or clashing plugin fails discovery with an error naming its distribution and entry point,
rather than disappearing silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar, cast

from runyard.errors import ConfigurationError

__all__ = ["discover_plugins"]

B = TypeVar("B")


def discover_plugins(
    group: str,
    builtins: Mapping[str, B],
    *,
    what: str,
    expected: str,
    is_builder: Callable[[Any], bool],
    found: Iterable[EntryPoint] | None = None,
) -> dict[str, B]:
    """``builtins`` plus every entry point of ``group`` installed (or ``found``), by name.

    ``what`` names a builder in errors (``tool factory``), ``expected`` its protocol, which
    ``is_builder`` checks each loaded plugin against.
    """
    builders = dict(builtins)
    origins = dict.fromkeys(builders, "runyard (built in)")
    points = entry_points(group=group) if found is None else found
    for point in points:
        origin = _origin(point)
        if point.name in builders:
            raise ConfigurationError(
                f"{what} {point.name!r} from {origin} clashes with the one from "
                f"{origins[point.name]}"
            )
        try:
            builder = _made(point.load())
        except Exception as exc:
            raise ConfigurationError(f"{what} from {origin} failed to load: {exc}") from exc
        if not is_builder(builder):
            raise ConfigurationError(
                f"{what} from {origin} is a {type(builder).__name__}, not a {expected}"
            )
        builders[point.name] = cast(B, builder)
        origins[point.name] = origin
    return builders


def _origin(point: EntryPoint) -> str:
    dist = point.dist
    where = f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
    return f"{where} (entry point {point.name} = {point.value})"


def _made(loaded: Any) -> Any:
    """A class or a function makes the builder; anything else is meant to be one already."""
    if isinstance(loaded, type) or (callable(loaded) and not hasattr(loaded, "build")):
        return loaded()
    return loaded
