"""Why a request cannot be routed. The HTTP layer answers ``UnknownAgentError`` with 404."""

from __future__ import annotations

__all__ = ["NoRoutingError", "RoutingError", "UnknownAgentError"]


class RoutingError(Exception):
    """No agent can be chosen for the request; the message says why."""


class UnknownAgentError(RoutingError):
    """The request named an agent (or a rule pointed at one) the tenant does not have."""

    def __init__(self, agent_id: str, tenant: str) -> None:
        super().__init__(f"no agent {agent_id!r} for tenant {tenant!r}")
        self.agent_id = agent_id
        self.tenant = tenant


class NoRoutingError(RoutingError):
    """The request named no agent and the catalog has no routing for its tenant, nor a shared one."""

    def __init__(self, tenant: str) -> None:
        super().__init__(
            f"no routing for tenant {tenant!r} and no shared one: add a kind: routing document "
            "to the catalog, or name the agent"
        )
        self.tenant = tenant
