"""``load_catalog``: a directory of YAML files (or one file) read into a ``Catalog``.

Files are read in path order; each is accepted or rejected whole. A file is rejected for its own
faults (YAML, unknown fields, bad values) or for naming something no accepted file defines; when
a rejected file took an agent with it, the files that named that agent are rejected next, so the
catalog never holds a dangling name. One bad file never hides the good ones.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from runyard.registry.catalog import Catalog, CatalogEntry
from runyard.registry.errors import CatalogError, RejectedFile
from runyard.registry.middleware import installed_middleware
from runyard.registry.references import reference_errors
from runyard.registry.spec_file import read_spec_file
from runyard.registry.specs import CatalogSpec

__all__ = ["CATALOG_SUFFIXES", "CatalogLoad", "catalog_files", "load_catalog"]

CATALOG_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class CatalogLoad:
    """What loading found: the catalog of every accepted file, and each rejected file."""

    catalog: Catalog
    rejected: tuple[RejectedFile, ...] = ()

    @property
    def errors(self) -> list[CatalogError]:
        """Every error of every rejected file, in file order."""
        return [error for rejected in self.rejected for error in rejected.errors]


def catalog_files(path: Path) -> list[Path]:
    """``path`` itself when it is a file; else every ``*.yaml``/``*.yml`` under it, in path
    order, skipping hidden files and folders (editors' swap and backup files)."""
    if path.is_file():
        return [path]
    return sorted(
        file
        for file in path.rglob("*")
        if file.suffix in CATALOG_SUFFIXES
        and file.is_file()
        and not any(part.startswith(".") for part in file.relative_to(path).parts)
    )


def load_catalog(
    path: Path,
    *,
    known_tools: Collection[str],
    factories: Collection[str] | None = None,
    known_middleware: Collection[str] | None = None,
) -> CatalogLoad:
    """The catalog in ``path`` (a directory or one file).

    ``known_tools`` are the names of the tools and tool factories the server has; an agent may
    list those and the catalog's own ``kind: tool`` ids. ``factories`` are the names a
    ``kind: tool`` may name as its ``factory`` (None: ``known_tools``). ``known_middleware``: the
    middleware agents may list, by default the built-ins and the installed ``runyard.middleware``
    entry points. Raises ``FileNotFoundError`` when ``path`` does not exist.
    """
    middleware = installed_middleware() if known_middleware is None else known_middleware
    if not path.exists():
        raise FileNotFoundError(f"no catalog at {path}")
    by_file: dict[str, list[CatalogEntry[CatalogSpec]]] = {}
    rejected: dict[str, tuple[CatalogError, ...]] = {}
    withdrawn: list[CatalogEntry[CatalogSpec]] = []
    for file in catalog_files(path):
        entries, errors = read_spec_file(file)
        if errors:
            rejected[str(file)] = tuple(errors)
            withdrawn += entries
        else:
            by_file[str(file)] = entries
    _reject_dangling(by_file, rejected, withdrawn, known_tools, factories, middleware)
    accepted = [entry for entries in by_file.values() for entry in entries]
    order = sorted(rejected)
    return CatalogLoad(Catalog.of(accepted), tuple(RejectedFile(f, rejected[f]) for f in order))


def _reject_dangling(
    by_file: dict[str, list[CatalogEntry[CatalogSpec]]],
    rejected: dict[str, tuple[CatalogError, ...]],
    withdrawn: list[CatalogEntry[CatalogSpec]],
    known_tools: Collection[str],
    factories: Collection[str] | None,
    known_middleware: Collection[str],
) -> None:
    """Reject, one at a time and in path order, the first file with a reference error.

    One at a time, because rejecting a file can create errors elsewhere (a name it defined is
    gone) or end one (it was the first of two specs with the same id).
    """
    while True:
        accepted = [entry for entries in by_file.values() for entry in entries]
        errors = reference_errors(
            accepted, known_tools, withdrawn, factories, known_middleware=known_middleware
        )
        if not errors:
            return
        faulty = {error.file for error in errors}
        first = next(file for file in by_file if file in faulty)
        rejected[first] = tuple(
            sorted((e for e in errors if e.file == first), key=lambda e: e.line)
        )
        withdrawn += by_file.pop(first)
