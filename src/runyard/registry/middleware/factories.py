"""``MiddlewareFactories``: middleware builders by name, the built-ins plus the ``runyard.middleware``
entry points.

A package adds middleware (a tenant's own guardrail, say) by declaring an entry point in the
group ``runyard.middleware`` whose name is the middleware's name and whose object is a
``MiddlewareBuilder`` (or a class or function that makes one with no arguments). Agents then
list it by that name; the catalog refuses any other name when it loads. A broken or clashing
plugin fails discovery with an error naming its distribution, as tool factories do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Protocol, runtime_checkable

from pydantic_ai.models import Model

from runyard.errors import ConfigurationError
from runyard.registry.middleware.parameters import BUILTIN_MIDDLEWARE_PARAMETERS
from runyard.registry.middleware.ref import MiddlewareRef
from runyard.registry.plugins import discover_plugins
from runyard.runtime import Middleware

__all__ = [
    "MIDDLEWARE_ENTRY_POINT_GROUP",
    "MiddlewareBuildContext",
    "MiddlewareBuilder",
    "MiddlewareFactories",
    "installed_middleware",
]

MIDDLEWARE_ENTRY_POINT_GROUP = "runyard.middleware"


@dataclass(frozen=True, slots=True)
class MiddlewareBuildContext:
    """What a builder may know of the agent it builds for."""

    agent_id: str
    tenant: str | None
    """The spec's tenant; None for an agent every tenant shares."""
    resolve_model: Callable[[str], Model]
    """A catalog model name → the model, as the agent's own is resolved (tests: scripted)."""


@runtime_checkable
class MiddlewareBuilder(Protocol):
    """Makes one ``Middleware`` from an agent's ``parameters`` for it."""

    def build(self, parameters: Mapping[str, Any], context: MiddlewareBuildContext) -> Middleware:
        """The middleware; ``ConfigurationError`` (or ``ValueError``) for bad parameters."""
        ...


def installed_middleware(found: Iterable[EntryPoint] | None = None) -> frozenset[str]:
    """The names agents may list: the built-ins and every installed ``runyard.middleware`` entry
    point (only their names: nothing is imported to check a catalog)."""
    points = entry_points(group=MIDDLEWARE_ENTRY_POINT_GROUP) if found is None else found
    return frozenset(BUILTIN_MIDDLEWARE_PARAMETERS) | {point.name for point in points}


class MiddlewareFactories(Mapping[str, MiddlewareBuilder]):
    """Middleware builders by name; ``build`` makes an agent's middleware from its spec."""

    def __init__(self, builders: Mapping[str, MiddlewareBuilder]) -> None:
        self._builders = dict(builders)

    @classmethod
    def discover(
        cls, builtins: Mapping[str, MiddlewareBuilder], found: Iterable[EntryPoint] | None = None
    ) -> MiddlewareFactories:
        """``builtins`` plus every ``runyard.middleware`` entry point installed (or ``found``)."""
        builders = discover_plugins(
            MIDDLEWARE_ENTRY_POINT_GROUP,
            builtins,
            what="middleware",
            expected="MiddlewareBuilder",
            is_builder=lambda built: isinstance(built, MiddlewareBuilder),
            found=found,
        )
        return cls(builders)

    def build(self, ref: MiddlewareRef, context: MiddlewareBuildContext) -> Middleware:
        """The middleware ``ref`` names, built from its parameters."""
        builder = self[ref.name]
        parameters = ref.parameters
        if not isinstance(parameters, dict):  # a built-in's, validated with the spec
            parameters = parameters.model_dump(mode="json", by_alias=True, exclude_unset=True)
        try:
            built = builder.build(parameters, context)
        except Exception as exc:
            raise ConfigurationError(f"middleware {ref.name!r}: {exc}") from exc
        if not isinstance(built, Middleware):
            raise ConfigurationError(
                f"middleware {ref.name!r} built a {type(built).__name__}, not a Middleware"
            )
        return built

    def __getitem__(self, name: str) -> MiddlewareBuilder:
        try:
            return self._builders[name]
        except KeyError:
            known = ", ".join(sorted(self._builders)) or "none"
            raise ConfigurationError(f"unknown middleware {name!r} (known: {known})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)
