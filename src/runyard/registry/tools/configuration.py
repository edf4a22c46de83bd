"""``ToolConfiguration``: what a tool factory builds — one tool, or a toolkit of several.

Every tool in it carries the metadata n8n's ``getConnectedTools`` sets and the seed asks for:
``source_node_name`` (the catalog tool the call belongs to) and ``is_from_toolkit``, so whoever
routes or shows a call can tell where it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.toolkit import Toolkit, ToolkitExecutor
from runyard.tools import IS_FROM_TOOLKIT, SOURCE_NODE_NAME, Tool

__all__ = ["IS_FROM_TOOLKIT", "SOURCE_NODE_NAME", "ToolConfiguration"]


@dataclass(frozen=True, slots=True)
class ToolConfiguration:
    """The tools built for one catalog tool entry, its parameters, and its toolkit if any.

    Build it with ``single`` or ``from_toolkit``; ``tools`` is what the agent is given.
    """

    source_node_name: str
    tools: tuple[Tool, ...]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    toolkit: ToolkitExecutor | None = None

    @property
    def is_toolkit(self) -> bool:
        return self.toolkit is not None

    @classmethod
    def single(cls, tool: Tool, context: BuildContext) -> ToolConfiguration:
        """One tool, reported as coming from the catalog entry ``context.name``."""
        return cls(context.name, (_marked(tool, context, False),), dict(context.parameters))

    @classmethod
    def from_toolkit(cls, toolkit: Toolkit, context: BuildContext) -> ToolConfiguration:
        """The toolkit's tools that ``context.grant`` allows (all when it is None).

        Each call goes through the toolkit's executor, so a tool the toolkit no longer has, or
        that was not granted, is a tool error rather than a call to something stale.
        """
        executor = ToolkitExecutor(toolkit, context.grant)
        marked = tuple(_marked(tool, context, True) for tool in executor.offered_tools())
        return cls(context.name, marked, dict(context.parameters), executor)


def _marked(tool: Tool, context: BuildContext, from_toolkit: bool) -> Tool:
    """``tool`` with its origin added to (a copy of) its metadata."""
    origin = {SOURCE_NODE_NAME: context.name, IS_FROM_TOOLKIT: from_toolkit}
    return replace(tool, metadata={**tool.metadata, **origin})
