"""``kind: routing``: a tenant's default agent and its ordered rules.

Which agent a request gets is decided elsewhere (``runyard.routing``); this is the validated data
it reads: highest ``priority`` first, ties in file order, ``default_agent`` when no rule matches.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runyard.registry.conditions import Condition
from runyard.registry.spec_base import SpecId, SpecModel, TenantId

__all__ = ["RoutingRule", "RoutingSpec"]


class RoutingRule(SpecModel):
    """When ``when`` matches the request's context, the request goes to ``agent``."""

    id: SpecId
    priority: int = 0
    when: Condition
    agent: SpecId
    version: str | None = Field(default=None, min_length=1)
    """Pin one version of the agent (its content hash); absent = the active version."""


class RoutingSpec(SpecModel):
    """The routing of one tenant; ``tenant`` absent = every tenant without a routing of its own."""

    kind: Literal["routing"]
    tenant: TenantId | None = None
    default_agent: SpecId
    rules: list[RoutingRule] = Field(default_factory=list)
