"""``ToolFactories``: tool builders by name, from the built-ins and the ``runyard.tools`` entry points.

A package adds tools by declaring an entry point in the group ``runyard.tools`` whose name is
the factory's name and whose object is a ``ToolBuilder`` (``runyard.registry.plugins`` says how
plugins are found, and how a broken or clashing one fails).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import EntryPoint

from runyard.errors import ConfigurationError
from runyard.registry.plugins import discover_plugins
from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.builder import ToolBuilder
from runyard.registry.tools.configuration import ToolConfiguration
from runyard.registry.tools.dependencies import ToolDependencies
from runyard.registry.tools.execution_context import CallExecutionContext
from runyard.registry.tools.http_request import HttpRequestFactory
from runyard.registry.tools.mcp import McpFactory

__all__ = ["ENTRY_POINT_GROUP", "ToolFactories", "builtin_factories"]

ENTRY_POINT_GROUP = "runyard.tools"


def builtin_factories() -> dict[str, ToolBuilder]:
    """The factories runyard ships, by name."""
    return {"http_request": HttpRequestFactory(), "mcp": McpFactory()}


class ToolFactories(Mapping[str, ToolBuilder]):
    """Tool builders by factory name; ``build`` makes a ``ToolConfiguration`` from a spec."""

    def __init__(self, builders: Mapping[str, ToolBuilder]) -> None:
        self._builders = dict(builders)

    @classmethod
    def discover(
        cls,
        found: Iterable[EntryPoint] | None = None,
        *,
        also_built_in: Mapping[str, ToolBuilder] | None = None,
    ) -> ToolFactories:
        """The built-ins plus every ``runyard.tools`` entry point installed (or ``found``).

        ``also_built_in`` adds factories of the layers above (the service's orchestration tools
        need the service, which this layer may not import); a plugin may not take their names.
        """
        builders = builtin_factories()
        for name, builder in (also_built_in or {}).items():
            if name in builders:
                raise ConfigurationError(f"built-in tool factory {name!r} is defined twice")
            builders[name] = builder
        discovered = discover_plugins(
            ENTRY_POINT_GROUP,
            builders,
            what="tool factory",
            expected="ToolBuilder",
            is_builder=lambda built: isinstance(built, ToolBuilder),
            found=found,
        )
        return cls(discovered)

    def build(
        self, factory: str, context: BuildContext, deps: ToolDependencies
    ) -> ToolConfiguration:
        """Build ``context`` with ``factory``; each built tool is bound to its execution context."""
        builder = self[factory]
        exec_ctx = CallExecutionContext(context.parameters, deps.binaries)
        try:
            built = builder.build(context, deps, exec_ctx)
        except ConfigurationError:
            raise
        except Exception as exc:
            raise ConfigurationError(
                f"tool factory {factory!r} failed to build {context.name!r}: {exc}"
            ) from exc
        if not isinstance(built, ToolConfiguration):
            raise ConfigurationError(
                f"tool factory {factory!r} returned {type(built).__name__}, not a ToolConfiguration"
            )
        tools = tuple(exec_ctx.bind(tool) for tool in built.tools)
        return ToolConfiguration(built.source_node_name, tools, built.parameters, built.toolkit)

    def __getitem__(self, factory: str) -> ToolBuilder:
        try:
            return self._builders[factory]
        except KeyError:
            known = ", ".join(sorted(self._builders)) or "none"
            raise ConfigurationError(f"unknown tool factory {factory!r} (known: {known})") from None

    def __contains__(self, factory: object) -> bool:
        return factory in self._builders

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)
