"""``CatalogVersions``: every version of every catalog agent, which one the database activates,
and a revision counter that replicas poll to see an activation.

Versions are stored once by content hash (saving one again changes nothing), so a run whose
thread names a version finds its spec after a restart even when the file changed. Only
activations move the revision: recording a file's version does not.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from runyard.storage.records import AgentActivation, AgentVersion

__all__ = ["CatalogVersions"]


@runtime_checkable
class CatalogVersions(Protocol):
    """Store, list and activate catalog agent versions."""

    async def save_agent_version(self, version: AgentVersion, /) -> bool:
        """Store ``version`` unless one with its hash is stored; True when it was new."""
        ...

    async def get_agent_version(self, version: str) -> AgentVersion | None:
        """The version with this content hash; None when none is stored."""
        ...

    async def list_agent_versions(self, agent_id: str, tenant: str | None) -> list[AgentVersion]:
        """Every stored version of the agent ``agent_id`` of ``tenant`` (None: the shared
        spec), oldest first."""
        ...

    async def activate_agent_version(
        self, agent_id: str, tenant: str | None, version: str
    ) -> int | None:
        """Make ``version`` the agent's active one and move the revision; the new revision, or
        None (nothing changed) when ``version`` is no stored version of that agent."""
        ...

    async def deactivate_agent(self, agent_id: str, tenant: str | None) -> int | None:
        """Drop the agent's activation (its file's spec serves again) and move the revision;
        the new revision, or None when it had none."""
        ...

    async def agent_activations(self) -> list[AgentActivation]:
        """Every activation, by tenant then agent id."""
        ...

    async def catalog_revision(self) -> int:
        """How many activations and deactivations the database has seen (0 at first)."""
        ...
