"""``CatalogState``: what a catalog serves at one moment, swapped whole when it changes.

It joins two sources: the catalog files (``files``, each file's last good entries included) and
the agent versions the database activates (``database``, ``PUT``/``activate`` of the admin API).
**An activated version takes the place of the file's spec with the same (tenant, id)**; agents,
tools and routing otherwise come from the files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runyard.registry import (
    AgentSpec,
    Catalog,
    CatalogEntry,
    CatalogLoad,
    CatalogSpec,
    RejectedFile,
)

__all__ = ["CatalogState"]


@dataclass(frozen=True, slots=True)
class CatalogState:
    """A request sees the catalog before a change or after it, never half of it."""

    files: CatalogLoad
    """What the directory gave: its catalog, each file's entries, the files rejected."""
    database: tuple[CatalogEntry[AgentSpec], ...] = ()
    """The activated versions that serve (each checked against the files and compiled)."""
    database_rejected: tuple[RejectedFile, ...] = ()
    """Activated versions that cannot serve with these files, and why (their file's spec, if
    any, serves instead)."""
    database_revision: int = 0
    """The database's catalog revision these activations were read at."""
    generation: int = 0
    """How many times the served catalog has changed since start-up (specs or rejections)."""
    catalog: Catalog = field(init=False, compare=False, repr=False)
    """The catalog served: the files' with the activated versions in place."""

    def __post_init__(self) -> None:
        catalog = self.files.catalog
        if self.database:
            catalog = Catalog.of([*self.database, *catalog.entries()])
        object.__setattr__(self, "catalog", catalog)

    @property
    def rejected(self) -> tuple[RejectedFile, ...]:
        """The rejected files, then the activated versions that cannot serve."""
        return (*self.files.rejected, *self.database_rejected)

    def from_database(self, entry: CatalogEntry[CatalogSpec]) -> bool:
        """True when ``entry`` is an activated version, not a file's spec."""
        return entry in self.database

    def same_as(self, other: CatalogState) -> bool:
        """True when ``other`` serves the same specs and rejects the same files, for the same
        reasons."""
        return self.catalog.revision == other.catalog.revision and self.rejected == other.rejected
