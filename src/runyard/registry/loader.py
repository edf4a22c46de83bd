"""``load_catalog``: a directory of YAML files (or one file) read into a ``Catalog``.

Files are read in path order; each is accepted or rejected whole. A file is rejected for its own
faults (YAML, unknown fields, bad values) or for naming something no accepted file defines; when
a rejected file took an agent with it, the files that named that agent are rejected next, so the
catalog never holds a dangling name. One bad file never hides the good ones.

A reload passes each file's ``last_good`` entries (what it served before): a file rejected now
serves those in its place, so a broken edit never takes a working agent away. ``refused`` adds
errors found outside the loader (a spec the runtime cannot compile) to the files they name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
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
    served: Mapping[str, tuple[CatalogEntry[CatalogSpec], ...]] = field(default_factory=dict)
    """Each file's entries in ``catalog``: its own, or its last good ones when it was rejected."""

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
    last_good: Mapping[str, Sequence[CatalogEntry[CatalogSpec]]] | None = None,
    refused: Mapping[str, Sequence[CatalogError]] | None = None,
) -> CatalogLoad:
    """The catalog in ``path`` (a directory or one file).

    ``known_tools`` are the names of the tools and tool factories the server has; an agent may
    list those and the catalog's own ``kind: tool`` ids. ``factories`` are the names a
    ``kind: tool`` may name as its ``factory`` (None: ``known_tools``). ``known_middleware``: the
    middleware agents may list, by default the built-ins and the installed ``runyard.middleware``
    entry points. ``last_good`` maps a file to the entries it served before (a rejected file
    serves them instead); ``refused`` maps a file to errors found outside the loader, which
    reject it. Raises ``FileNotFoundError`` when ``path`` does not exist.
    """
    middleware = installed_middleware() if known_middleware is None else known_middleware
    if not path.exists():
        raise FileNotFoundError(f"no catalog at {path}")
    files = _Files(dict(last_good or {}))
    for file in catalog_files(path):
        entries, errors = read_spec_file(file)
        files.read(str(file), entries, [*errors, *(refused or {}).get(str(file), ())])
    files.reject_dangling(known_tools, factories, middleware)
    files.add_withdrawn_reference_errors(known_tools, factories, middleware)
    return files.load()


@dataclass
class _Files:
    """The files read so far: what each serves, and why each rejected one was."""

    last_good: dict[str, Sequence[CatalogEntry[CatalogSpec]]]
    by_file: dict[str, list[CatalogEntry[CatalogSpec]]] = field(default_factory=dict)
    rejected: dict[str, tuple[CatalogError, ...]] = field(default_factory=dict)
    withdrawn: list[CatalogEntry[CatalogSpec]] = field(default_factory=list)
    """Valid specs of rejected files that serve nothing (named in reference errors)."""
    fallen_back: set[str] = field(default_factory=set)
    """Rejected files serving their last good entries."""

    def read(
        self, file: str, entries: list[CatalogEntry[CatalogSpec]], errors: list[CatalogError]
    ) -> None:
        if not errors:
            self.by_file[file] = entries
            return
        self.rejected[file] = tuple(sorted(errors, key=lambda error: error.line))
        if not self._fall_back(file):
            self.withdrawn += entries

    def reject_dangling(
        self,
        known_tools: Collection[str],
        factories: Collection[str] | None,
        known_middleware: Collection[str],
    ) -> None:
        """Reject, one at a time and in path order, the first file with a reference error.

        One at a time, because rejecting a file can create errors elsewhere (a name it defined
        is gone) or end one (it was the first of two specs with the same id).
        """
        while True:
            accepted = [entry for entries in self.by_file.values() for entry in entries]
            errors = reference_errors(
                accepted, known_tools, self.withdrawn, factories, known_middleware=known_middleware
            )
            if not errors:
                return
            faulty = {error.file for error in errors}
            first = next(file for file in self.by_file if file in faulty)
            own = sorted((e for e in errors if e.file == first), key=lambda e: e.line)
            self.rejected[first] = (*self.rejected.get(first, ()), *own)
            if first in self.fallen_back or not self._fall_back(first):
                self.fallen_back.discard(first)
                self.withdrawn += self.by_file.pop(first)

    def add_withdrawn_reference_errors(
        self,
        known_tools: Collection[str],
        factories: Collection[str] | None,
        known_middleware: Collection[str],
    ) -> None:
        """Add to each rejected file the reference errors of its valid documents, so that one
        reading lists every fault of the file, not the next one after each fix."""
        accepted = [entry for entries in self.by_file.values() for entry in entries]
        for file, known in list(self.rejected.items()):
            own = [entry for entry in self.withdrawn if entry.source == file]
            if not own:
                continue
            others = [entry for entry in self.withdrawn if entry.source != file]
            errors = reference_errors(
                [*accepted, *own], known_tools, others, factories, known_middleware=known_middleware
            )
            found = [error for error in errors if error.file == file and error not in known]
            self.rejected[file] = tuple(sorted([*known, *found], key=lambda error: error.line))

    def load(self) -> CatalogLoad:
        accepted = [entry for entries in self.by_file.values() for entry in entries]
        rejected = tuple(
            RejectedFile(file, self.rejected[file], last_good=file in self.fallen_back)
            for file in sorted(self.rejected)
        )
        served = {file: tuple(entries) for file, entries in self.by_file.items()}
        return CatalogLoad(Catalog.of(accepted), rejected, served)

    def _fall_back(self, file: str) -> bool:
        """Serve ``file``'s last good entries in place of its own; False when it has none."""
        entries = self.last_good.get(file)
        if not entries:
            return False
        self.by_file[file] = list(entries)
        self.fallen_back.add(file)
        return True
