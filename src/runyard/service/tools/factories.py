"""The service's built-in tool factories: ``calculator``, ``notes``, ``plan``, ``delegate``, ``agent``.

They live here, not in ``runyard.registry.tools``, because their tools need the service (its
store, its runs, its catalog of agents); ``service_factories()`` hands them to
``ToolFactories.discover(also_built_in=...)``. Single tools are named after their catalog entry,
as every factory's are. ``save_note`` and ``list_notes`` come as the ``notes`` toolkit, so an
agent can be granted only one of them (``grant: [list_notes]``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict

from runyard.registry.tools import (
    BuildContext,
    ExecutionContext,
    StaticToolkit,
    ToolBuilder,
    ToolConfiguration,
    ToolDependencies,
    factory_parameters,
)
from runyard.service.tools.agent_tool import AgentToolFactory
from runyard.service.tools.calculator import calculator
from runyard.service.tools.client_files import client_files
from runyard.service.tools.delegate import delegate
from runyard.service.tools.notes import list_notes, save_note
from runyard.service.tools.plan import plan
from runyard.service.tools.sub_agent_delegate import sub_agent_delegate
from runyard.tools import Tool

__all__ = ["DelegateFactory", "NotesFactory", "SingleToolFactory", "service_factories"]


class _NoParameters(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True, slots=True)
class SingleToolFactory:
    """The factory ``factory`` of one fixed ``tool``; it takes no parameters."""

    factory: str
    tool: Tool

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        factory_parameters(_NoParameters, context, self.factory)
        return ToolConfiguration.single(replace(self.tool, name=context.name), context)


class NotesFactory:
    """The ``notes`` toolkit: ``save_note`` (asks for approval) and ``list_notes``."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        factory_parameters(_NoParameters, context, "notes")
        toolkit = StaticToolkit(context.name, (save_note, list_notes))
        return ToolConfiguration.from_toolkit(toolkit, context)


class DelegateFactory:
    """``delegate``: to the agent's ``sub_agents`` when it lists some, else to ad-hoc sub-agents
    made from its own tools."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        factory_parameters(_NoParameters, context, "delegate")
        if context.sub_agents:
            return ToolConfiguration.single(
                sub_agent_delegate(context.name, context.sub_agents), context
            )
        return ToolConfiguration.single(replace(delegate, name=context.name), context)


def service_factories() -> dict[str, ToolBuilder]:
    """The service's built-in factories, by name."""
    return {
        "calculator": SingleToolFactory("calculator", calculator),
        "client_files": SingleToolFactory("client_files", client_files),
        "notes": NotesFactory(),
        "plan": SingleToolFactory("plan", plan),
        "delegate": DelegateFactory(),
        "agent": AgentToolFactory(),
    }
