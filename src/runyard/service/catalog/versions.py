"""Catalog agent versions as the store keeps them: ``AgentVersion`` rows with the spec's JSON.

Storage never reads a spec (it imports nothing of ``runyard.registry``); this module turns an
entry into a row and back. A row keeps the version it was stored under, so a spec stored by an
older runyard (whose canonical JSON may lack a field added since) still answers to its version.
"""

from __future__ import annotations

import json

from runyard.ids import now_ms
from runyard.registry import AgentSpec, CatalogEntry, canonical_json
from runyard.storage import AgentVersion, AgentVersionOrigin

__all__ = ["database_source", "stored_entry", "stored_version", "version_at_its_file"]


def database_source(agent_id: str, tenant: str | None) -> str:
    """Where an activated version says it comes from: ``database:TENANT/ID`` (``*``: shared)."""
    return f"database:{tenant or '*'}/{agent_id}"


def stored_version(
    entry: CatalogEntry[AgentSpec], origin: AgentVersionOrigin, source: str
) -> AgentVersion:
    """The row of ``entry``; ``source`` says who stored it (``file:line``, ``api``)."""
    spec = entry.spec
    data = json.loads(canonical_json(spec))
    return AgentVersion(entry.version, spec.id, spec.tenant, data, origin, source, now_ms())


def stored_entry(stored: AgentVersion) -> CatalogEntry[AgentSpec]:
    """The entry of a stored version (``pydantic.ValidationError`` when this runyard no longer
    accepts its spec)."""
    spec = AgentSpec.model_validate(stored.spec)
    return CatalogEntry(spec, database_source(spec.id, spec.tenant), 0, stored.version)


def version_at_its_file(stored: AgentVersion) -> CatalogEntry[AgentSpec]:
    """``stored_entry``, at the file and line it was read from when a file's: a run resumed on
    an old version after a restart finds a ``graph: ./file.py:attr`` beside that file again."""
    entry = stored_entry(stored)
    file, _, line = stored.source.rpartition(":")
    if stored.origin != "file" or not line.isdigit():
        return entry
    return CatalogEntry(entry.spec, file, int(line), stored.version)
