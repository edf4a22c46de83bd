"""``kind: tool``: a named instance of a tool factory with its parameters, for agents to list
under ``tools`` (for example ``http_request`` bound to an allow-list)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from runyard.registry.spec_base import SpecId, SpecModel, TenantId

__all__ = ["ToolInstanceSpec"]


class ToolInstanceSpec(SpecModel):
    """A tool made by ``factory`` from ``parameters``; agents name it by ``id``.

    ``tenant`` absent = every tenant may use it; a tenant's own tool with the same id takes its
    place for that tenant.
    """

    kind: Literal["tool"]
    id: SpecId
    tenant: TenantId | None = None
    factory: SpecId
    description: str = ""
    """What the model is told the tool is for; empty = the factory's own description."""
    parameters: dict[str, Any] = Field(default_factory=dict)
    retry_safe: bool | None = None
    """Whether a call of its tools may run again when a run is taken over mid-call (see
    ``Tool.retry_safe``); absent = what the factory says of the tools it builds."""
