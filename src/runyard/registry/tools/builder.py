"""``ToolBuilder``: the protocol every tool factory implements, built-in or from a plugin."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.configuration import ToolConfiguration
from runyard.registry.tools.dependencies import ToolDependencies
from runyard.registry.tools.execution_context import ExecutionContext

__all__ = ["ToolBuilder"]


@runtime_checkable
class ToolBuilder(Protocol):
    """Builds the tools of one catalog tool entry.

    ``build`` validates ``context.parameters`` (a ``ConfigurationError`` names what is wrong),
    takes shared clients from ``deps`` (never from the environment) and returns
    ``ToolConfiguration.single(...)`` or ``ToolConfiguration.from_toolkit(...)``. It runs once
    per spec version, not per call; ``exec_ctx`` serves the built tools while they run.
    """

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration: ...
