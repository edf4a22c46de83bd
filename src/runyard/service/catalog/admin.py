"""``CatalogAdmin``: agent versions stored, listed and activated through the database.

``put`` stores a spec as a new version (the same spec twice is one version) and activates it;
``activate`` switches to any stored version of the agent, ``deactivate`` drops the activation
so the file's spec serves again. An activated version takes the place of the file's spec with
the same (tenant, id) (``CatalogState``). Every change moves the database's catalog revision,
which every replica polls; this process applies it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from runyard.registry import AgentSpec, CatalogEntry
from runyard.service.catalog.agents import CatalogAgents
from runyard.service.catalog.versions import database_source, stored_entry, stored_version
from runyard.service.errors import AgentVersionNotFound, InvalidAgentSpec, UnknownAgent
from runyard.storage import AgentVersion, CatalogVersions

__all__ = ["AgentVersions", "CatalogAdmin"]


@dataclass(frozen=True, slots=True)
class AgentVersions:
    """The stored versions of one agent of one tenant, and the one that serves."""

    agent_id: str
    tenant: str | None
    versions: list[AgentVersion]
    """Oldest first."""
    active: str | None
    """The version that serves for this (tenant, id) now; None when none does."""
    activated: bool
    """True when ``active`` is the database's activation, False when it is the file's spec."""


class CatalogAdmin:
    """The admin operations on a served catalog and its database."""

    def __init__(self, agents: CatalogAgents, store: CatalogVersions) -> None:
        self._agents = agents
        self._store = store

    async def put(self, spec: AgentSpec) -> tuple[AgentVersion, bool]:
        """Store ``spec`` and activate it; the version, and whether it was new.
        ``InvalidAgentSpec`` when it cannot serve with this catalog."""
        entry = CatalogEntry(spec, database_source(spec.id, spec.tenant), 0)
        self._check(entry)
        created = await self._store.save_agent_version(stored_version(entry, "api", "api"))
        stored = await self._store.get_agent_version(entry.version)
        assert stored is not None  # stored just now, and versions are never deleted
        await self._store.activate_agent_version(spec.id, spec.tenant, entry.version)
        await self._agents.refresh()
        return stored, created

    async def versions(self, agent_id: str, tenant: str | None) -> AgentVersions:
        """Every stored version of the agent; ``UnknownAgent`` when it has none and none
        serves."""
        stored = await self._store.list_agent_versions(agent_id, tenant)
        state = self._agents.state
        serving = state.catalog.agents.get((tenant, agent_id))
        if not stored and serving is None:
            raise UnknownAgent(agent_id, tenant=tenant)
        active = serving.version if serving is not None else None
        activated = serving is not None and state.from_database(serving)
        return AgentVersions(agent_id, tenant, stored, active, activated)

    async def activate(
        self, agent_id: str, version: str, *, tenants: Callable[[str | None], bool] = lambda _: True
    ) -> AgentVersion:
        """Serve the stored ``version`` of ``agent_id`` (its tenant is the version's own).
        ``AgentVersionNotFound`` — also when ``tenants(its tenant)`` is false, so a version of
        a tenant the caller may not manage is exactly an unknown one — or ``InvalidAgentSpec``
        when it cannot serve any more."""
        stored = await self._store.get_agent_version(version)
        if stored is None or stored.agent_id != agent_id or not tenants(stored.tenant):
            raise AgentVersionNotFound(agent_id, version)
        try:
            entry = stored_entry(stored)
        except ValidationError as exc:
            fields = [(".".join(map(str, e["loc"])), e["msg"]) for e in exc.errors()]
            raise InvalidAgentSpec(fields) from exc
        self._check(entry)
        await self._store.activate_agent_version(agent_id, stored.tenant, version)
        await self._agents.refresh()
        return stored

    async def deactivate(self, agent_id: str, tenant: str | None) -> bool:
        """Drop the agent's activation: its file's spec (if any) serves again. False when it
        had none."""
        revision = await self._store.deactivate_agent(agent_id, tenant)
        await self._agents.refresh()
        return revision is not None

    def _check(self, entry: CatalogEntry[AgentSpec]) -> None:
        errors = self._agents.errors_of(entry)
        if errors:
            raise InvalidAgentSpec([(error.field, error.message) for error in errors])
