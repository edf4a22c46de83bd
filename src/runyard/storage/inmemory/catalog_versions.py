"""Catalog agent versions of the in-memory store."""

from __future__ import annotations

import copy
from dataclasses import replace

from runyard.ids import now_ms
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import CatalogVersions
from runyard.storage.records import AgentActivation, AgentVersion

__all__ = ["CatalogVersionsPart"]


class CatalogVersionsPart(MemoryState, CatalogVersions):
    """Versions by hash, activations by (tenant, agent id), and the revision counter."""

    async def save_agent_version(self, version: AgentVersion) -> bool:
        if version.version in self._agent_versions:
            return False
        self._agent_versions[version.version] = replace(version, spec=copy.deepcopy(version.spec))
        return True

    async def get_agent_version(self, version: str) -> AgentVersion | None:
        found = self._agent_versions.get(version)
        return None if found is None else replace(found, spec=copy.deepcopy(found.spec))

    async def list_agent_versions(self, agent_id: str, tenant: str | None) -> list[AgentVersion]:
        mine = (
            v for v in self._agent_versions.values() if (v.agent_id, v.tenant) == (agent_id, tenant)
        )
        ordered = sorted(mine, key=lambda v: (v.created_at, v.version))
        return [replace(v, spec=copy.deepcopy(v.spec)) for v in ordered]

    async def activate_agent_version(
        self, agent_id: str, tenant: str | None, version: str
    ) -> int | None:
        found = self._agent_versions.get(version)
        if found is None or (found.agent_id, found.tenant) != (agent_id, tenant):
            return None
        activation = AgentActivation(agent_id, tenant, version, now_ms())
        self._activations[(tenant or "", agent_id)] = activation
        self._catalog_revision += 1
        return self._catalog_revision

    async def deactivate_agent(self, agent_id: str, tenant: str | None) -> int | None:
        if self._activations.pop((tenant or "", agent_id), None) is None:
            return None
        self._catalog_revision += 1
        return self._catalog_revision

    async def agent_activations(self) -> list[AgentActivation]:
        return [self._activations[key] for key in sorted(self._activations)]

    async def catalog_revision(self) -> int:
        return self._catalog_revision
