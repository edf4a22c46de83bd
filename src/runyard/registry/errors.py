"""What is wrong with a catalog file: each error names the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CatalogError", "RejectedFile"]


@dataclass(frozen=True, slots=True)
class CatalogError:
    """One fault in one file, printed as ``file:line: field: message``.

    ``field`` is the path inside the document (``limits.max_iterations``, ``tools[2]``,
    ``rules[0].when.all[1].regex``); ``yaml`` for a file that is not valid YAML.
    """

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class RejectedFile:
    """A file that was not loaded, none of its documents, and every reason why."""

    file: str
    errors: tuple[CatalogError, ...]
    last_good: bool = False
    """True when the entries it served before it broke still serve (a reload kept them)."""
