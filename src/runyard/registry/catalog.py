"""``Catalog``: every agent, tool and routing spec loaded, as one immutable value.

Agents and tools are keyed by ``(tenant, id)`` with ``None`` for the specs every tenant shares;
routing by tenant. A tenant's own spec never replaces the shared one in the catalog: both are
kept, and ``agent(id, tenant)`` picks the tenant's. Two catalogs are equal when they hold the
same specs at the same versions; ``revision`` says so in one string.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, TypeVar

from runyard.registry.agent_spec import AgentSpec
from runyard.registry.routing_spec import RoutingSpec
from runyard.registry.specs import CatalogSpec, content_hash
from runyard.registry.tool_spec import ToolInstanceSpec
from runyard.registry.yaml_documents import FieldPath, line_at

__all__ = ["Catalog", "CatalogEntry", "ScopedKey"]

S = TypeVar("S", bound=CatalogSpec, covariant=True)
T = TypeVar("T", bound=CatalogSpec)

ScopedKey = tuple[str | None, str]
"""``(tenant, id)``; tenant ``None`` = shared by every tenant."""


@dataclass(frozen=True, slots=True)
class CatalogEntry(Generic[S]):
    """One spec at one version, and where it was written."""

    spec: S
    source: str
    """The file it came from."""
    line: int
    """The line its document starts at."""
    version: str = ""
    """The spec's content hash (filled in from the spec when not given)."""
    lines: Mapping[FieldPath, int] = field(default_factory=dict, compare=False, repr=False)
    """The line of every key and item of its document, for errors found after parsing."""

    def __post_init__(self) -> None:
        if not self.version:
            object.__setattr__(self, "version", content_hash(self.spec))

    def line_of(self, path: FieldPath) -> int:
        """The line of ``path`` in the document, or of its nearest enclosing key."""
        return line_at(self.lines, path, self.line)


@dataclass(frozen=True, slots=True)
class Catalog:
    """The loaded catalog. Build it with ``Catalog.of(entries)``; it never changes afterwards."""

    agents: Mapping[ScopedKey, CatalogEntry[AgentSpec]] = field(default_factory=dict)
    tools: Mapping[ScopedKey, CatalogEntry[ToolInstanceSpec]] = field(default_factory=dict)
    routing: Mapping[str | None, CatalogEntry[RoutingSpec]] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: list[CatalogEntry[CatalogSpec]]) -> Catalog:
        """The catalog of these entries; the first of two with the same key wins."""
        agents: dict[ScopedKey, CatalogEntry[AgentSpec]] = {}
        tools: dict[ScopedKey, CatalogEntry[ToolInstanceSpec]] = {}
        routing: dict[str | None, CatalogEntry[RoutingSpec]] = {}
        for entry in entries:
            spec = entry.spec
            if isinstance(spec, AgentSpec):
                agents.setdefault((spec.tenant, spec.id), _narrow(entry, spec))
            elif isinstance(spec, ToolInstanceSpec):
                tools.setdefault((spec.tenant, spec.id), _narrow(entry, spec))
            else:
                routing.setdefault(spec.tenant, _narrow(entry, spec))
        return cls(MappingProxyType(agents), MappingProxyType(tools), MappingProxyType(routing))

    def agent(self, agent_id: str, tenant: str | None = None) -> CatalogEntry[AgentSpec] | None:
        """The agent ``tenant`` gets under ``agent_id``: its own spec, else the shared one."""
        return _scoped(self.agents, agent_id, tenant)

    def tool(
        self, tool_id: str, tenant: str | None = None
    ) -> CatalogEntry[ToolInstanceSpec] | None:
        """The ``kind: tool`` ``tenant`` gets under ``tool_id``: its own, else the shared one."""
        return _scoped(self.tools, tool_id, tenant)

    def routing_for(self, tenant: str | None = None) -> CatalogEntry[RoutingSpec] | None:
        """The tenant's routing, else the shared one."""
        return self.routing.get(tenant) or self.routing.get(None)

    def entries(self) -> list[CatalogEntry[CatalogSpec]]:
        """Every entry: agents, then tools, then routing, each ordered by tenant and id."""
        scoped: list[Mapping[ScopedKey, CatalogEntry[CatalogSpec]]] = [self.agents, self.tools]
        out = [table[key] for table in scoped for key in sorted(table, key=_sort_key)]
        return out + [self.routing[t] for t in sorted(self.routing, key=lambda t: t or "")]

    @property
    def revision(self) -> str:
        """A hash of every entry's kind, scope and version: equal catalogs, equal revisions."""
        digest = hashlib.sha256()
        for entry in self.entries():
            spec = entry.spec
            name = "" if isinstance(spec, RoutingSpec) else spec.id
            digest.update(f"{spec.kind}|{spec.tenant or ''}|{name}|{entry.version}\n".encode())
        return digest.hexdigest()

    def __len__(self) -> int:
        return len(self.agents) + len(self.tools) + len(self.routing)


def _narrow(entry: CatalogEntry[CatalogSpec], spec: T) -> CatalogEntry[T]:
    return CatalogEntry(spec, entry.source, entry.line, entry.version, entry.lines)


def _scoped(
    table: Mapping[ScopedKey, CatalogEntry[T]], key: str, tenant: str | None
) -> CatalogEntry[T] | None:
    return (table.get((tenant, key)) if tenant is not None else None) or table.get((None, key))


def _sort_key(key: ScopedKey) -> tuple[str, str]:
    return (key[0] or "", key[1])
