"""``CatalogTools``: the tools a catalog agent lists, built by their factories when it compiles.

A name in an agent's ``tools`` is, in this order:

1. a ``kind: tool`` of the catalog (the tenant's own, else the shared one), built by its
   ``factory`` with its ``parameters``;
2. a tool factory (the service's built-ins, runyard's, and installed plugins'), built with the
   entry's ``parameters``;
3. a plain built-in tool of ``runyard.service.tools`` (no parameters).

A factory may build a toolkit; the entry's ``grant`` limits it to the named tools. Every build
gets the one ``ToolDependencies`` of the process and happens once per compiled version, never
per call. A fault is a ``ConfigurationError`` printed as ``file:line: field: message``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

from runyard.errors import ConfigurationError
from runyard.registry import (
    AgentSpec,
    Catalog,
    CatalogEntry,
    CatalogError,
    CatalogLoad,
    CatalogSpec,
    ToolInstanceSpec,
    ToolRef,
    installed_middleware,
    load_catalog,
    reference_errors,
)
from runyard.registry.tools import BuildContext, ToolConfiguration, ToolDependencies, ToolFactories
from runyard.service import tools as service_tools
from runyard.service.tools.factories import service_factories
from runyard.tools import Tool

__all__ = [
    "BUILTIN_TOOLS",
    "CatalogTools",
    "ToolBuildError",
    "catalog_tool_names",
    "discover_factories",
    "load_served_catalog",
]

BUILTIN_TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (getattr(service_tools, name) for name in service_tools.__all__)
    if isinstance(tool, Tool)
}
"""The plain tools a catalog agent may list by name: every tool ``runyard.service.tools``
exports (a factory of the same name, such as ``calculator``, builds the same tool)."""


def catalog_tool_names(factories: ToolFactories | None = None) -> tuple[str, ...]:
    """Every name an agent may list besides its catalog's ``kind: tool`` ids: the factories
    (discovered when not given) and the plain built-in tools."""
    found = factories if factories is not None else discover_factories()
    return tuple(sorted({*found, *BUILTIN_TOOLS}))


def load_served_catalog(
    path: Path,
    factories: ToolFactories | None = None,
    *,
    last_good: Mapping[str, Sequence[CatalogEntry[CatalogSpec]]] | None = None,
    refused: Mapping[str, Sequence[CatalogError]] | None = None,
) -> CatalogLoad:
    """``load_catalog`` checked against what the server has: agents may list its factories
    (discovered when not given) and plain tools, a ``kind: tool`` may only name a factory.
    ``last_good`` and ``refused``: as ``load_catalog`` takes them, for a reload."""
    found = factories if factories is not None else discover_factories()
    return load_catalog(
        path,
        known_tools=catalog_tool_names(found),
        factories=tuple(found),
        last_good=last_good,
        refused=refused,
    )


def discover_factories() -> ToolFactories:
    """runyard's factories, the service's, and every installed ``runyard.tools`` plugin."""
    return ToolFactories.discover(also_built_in=service_factories())


class ToolBuildError(ConfigurationError):
    """A tool of an agent that cannot be built, with the catalog error that says where and why
    (so a reload or the admin API reports its exact field, not just a message)."""

    def __init__(self, error: CatalogError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True, slots=True)
class CatalogTools:
    """The factories a catalog's tools are built with, and the dependencies every build gets."""

    factories: ToolFactories
    deps: ToolDependencies

    @classmethod
    def discover(cls, deps: ToolDependencies) -> CatalogTools:
        return cls(discover_factories(), deps)

    def load(
        self,
        path: Path,
        *,
        last_good: Mapping[str, Sequence[CatalogEntry[CatalogSpec]]] | None = None,
        refused: Mapping[str, Sequence[CatalogError]] | None = None,
    ) -> CatalogLoad:
        """The catalog at ``path``, checked against these factories (``load_served_catalog``)."""
        return load_served_catalog(path, self.factories, last_good=last_good, refused=refused)

    def reference_errors(self, entries: list[CatalogEntry[CatalogSpec]]) -> list[CatalogError]:
        """What ``entries`` name that neither they nor these factories define."""
        return reference_errors(
            entries,
            catalog_tool_names(self.factories),
            factories=tuple(self.factories),
            known_middleware=installed_middleware(),
        )

    def build(
        self, entry: CatalogEntry[AgentSpec], catalog: Catalog, tenant: str | None
    ) -> list[Tool]:
        """The tools of ``entry`` for ``tenant`` (None: the agent's own scope)."""
        built: list[Tool] = []
        for index, ref in enumerate(entry.spec.tools):
            built += _Entry(self, entry, index, ref, catalog, tenant or entry.spec.tenant).tools()
        return built

    def variant(self, entry: CatalogEntry[AgentSpec], catalog: Catalog, tenant: str | None) -> str:
        """What besides the agent's version decides its tools for ``tenant``: the versions of
        the ``kind: tool`` specs it names ("" when it names none)."""
        scope = tenant or entry.spec.tenant
        instances = [catalog.tool(ref.name, scope) for ref in entry.spec.tools]
        used = [f"{i.spec.tenant}/{i.spec.id}@{i.version}" for i in instances if i is not None]
        if not used:
            return ""
        return hashlib.sha256("\n".join(used).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class _Entry:
    """One entry of an agent's ``tools``, being built."""

    owner: CatalogTools
    agent: CatalogEntry[AgentSpec]
    index: int
    ref: ToolRef
    catalog: Catalog
    tenant: str | None

    def tools(self) -> list[Tool]:
        instance = self.catalog.tool(self.ref.name, self.tenant)
        if instance is not None:
            if self.ref.parameters:
                where = f"{instance.source}:{instance.line}"
                self._fail(f"{self.ref.name!r} is a kind: tool; set its parameters there ({where})")
            return self._instance(instance)
        if self.ref.name in self.owner.factories:
            try:
                built = self._build(self.ref.name, self.ref.parameters)
            except ConfigurationError as exc:
                self._fail(str(exc), cause=exc)
            return self._checked(built)
        plain = BUILTIN_TOOLS[self.ref.name]  # the loader let no other name through
        if self.ref.parameters or self.ref.grant is not None:
            self._fail(f"{self.ref.name!r} is a built-in tool: it takes no parameters or grant")
        return [plain]

    def _instance(self, instance: CatalogEntry[ToolInstanceSpec]) -> list[Tool]:
        spec = instance.spec
        try:
            built = self._build(spec.factory, spec.parameters)
        except ConfigurationError as exc:
            used = f"listed by agent {self.agent.spec.id!r} at {self._where()}"
            line = instance.line_of(("parameters",))
            raise ConfigurationError(
                str(CatalogError(instance.source, line, "parameters", f"{exc} ({used})"))
            ) from exc
        tools = self._checked(built)
        if spec.retry_safe is not None:
            tools = [replace(tool, retry_safe=spec.retry_safe) for tool in tools]
        if not spec.description:
            return tools
        if built.is_toolkit:
            self._fail(f"{spec.id!r} is a toolkit: its description is not given to any tool")
        return [replace(tool, description=spec.description) for tool in tools]

    def _build(self, factory: str, parameters: dict[str, Any]) -> ToolConfiguration:
        spec = self.agent.spec
        context = BuildContext(
            self.ref.name,
            parameters,
            tenant=self.tenant,
            agent_id=spec.id,
            grant=self.ref.grant,
            sub_agents=tuple(spec.sub_agents),
        )
        return self.owner.factories.build(factory, context, self.owner.deps)

    def _checked(self, built: ToolConfiguration) -> list[Tool]:
        if self.ref.grant is not None and not built.is_toolkit:
            self._fail(f"{self.ref.name!r} is one tool, not a toolkit: grant does not apply")
        return list(built.tools)

    def _where(self) -> str:
        return f"{self.agent.source}:{self.agent.line_of(('tools', self.index))}"

    def _fail(self, message: str, cause: Exception | None = None) -> NoReturn:
        error = CatalogError(
            self.agent.source,
            self.agent.line_of(("tools", self.index)),
            f"tools[{self.index}]",
            f"agent {self.agent.spec.id!r}: {message}",
        )
        raise ToolBuildError(error) from cause
