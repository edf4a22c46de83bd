"""Checks across specs: every name a spec uses exists, and no id is defined twice in one scope.

A spec shared by every tenant (no ``tenant``) may only name shared specs, because some tenant
has nothing else; a tenant's spec may name its tenant's specs and the shared ones.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from runyard.registry.agent_spec import AgentSpec
from runyard.registry.catalog import CatalogEntry, ScopedKey
from runyard.registry.errors import CatalogError
from runyard.registry.middleware import BUILTIN_MIDDLEWARE_PARAMETERS, MiddlewareRef
from runyard.registry.routing_spec import RoutingSpec
from runyard.registry.specs import CatalogSpec
from runyard.registry.tool_spec import ToolInstanceSpec
from runyard.registry.yaml_documents import FieldPath, field_name

__all__ = ["reference_errors"]

Entry = CatalogEntry[CatalogSpec]


def reference_errors(
    entries: list[Entry],
    known_tools: Collection[str],
    withdrawn: Sequence[Entry] = (),
    factories: Collection[str] | None = None,
    known_middleware: Collection[str] = frozenset(BUILTIN_MIDDLEWARE_PARAMETERS),
) -> list[CatalogError]:
    """Everything wrong between ``entries``; ``known_tools`` are the tools and tool factories
    the server has, ``factories`` those a ``kind: tool`` may be made by (None: all of them),
    ``known_middleware`` the middleware (built-ins and entry points).

    ``withdrawn`` are valid specs of rejected files: never names to rely on, but an error about a
    name one of them defines says where, so the operator fixes the cause, not the symptom.
    """
    names = _Names.of(entries, known_tools, withdrawn, factories)
    errors = list(_duplicates(entries))
    for entry in entries:
        spec = entry.spec
        if isinstance(spec, AgentSpec):
            errors += _agent_errors(entry, spec, names)
            errors += _middleware_errors(entry, spec.middleware, known_middleware)
        elif isinstance(spec, ToolInstanceSpec):
            errors += _tool_errors(entry, spec, names)
        else:
            errors += _routing_errors(entry, spec, names)
    return errors


@dataclass(frozen=True, slots=True)
class _Names:
    """What a spec may refer to, and what rejected files would have defined."""

    agents: frozenset[ScopedKey]
    tools: frozenset[ScopedKey]
    known_tools: frozenset[str]
    factories: frozenset[str]
    withdrawn: Mapping[tuple[str, str | None, str], Entry]

    @classmethod
    def of(
        cls,
        entries: list[Entry],
        known_tools: Collection[str],
        withdrawn: Sequence[Entry],
        factories: Collection[str] | None,
    ) -> _Names:
        agents = {(e.spec.tenant, e.spec.id) for e in entries if isinstance(e.spec, AgentSpec)}
        tools = {
            (e.spec.tenant, e.spec.id) for e in entries if isinstance(e.spec, ToolInstanceSpec)
        }
        gone: dict[tuple[str, str | None, str], Entry] = {
            (e.spec.kind, e.spec.tenant, e.spec.id): e
            for e in reversed(withdrawn)  # the first file that defined it is the one named
            if not isinstance(e.spec, RoutingSpec)
        }
        known = frozenset(known_tools)
        made_by = known if factories is None else frozenset(factories)
        return cls(frozenset(agents), frozenset(tools), known, made_by, gone)

    def has_agent(self, tenant: str | None, agent_id: str) -> bool:
        return (tenant, agent_id) in self.agents or (None, agent_id) in self.agents

    def has_tool(self, tenant: str | None, name: str) -> bool:
        known = name in self.known_tools
        return known or (tenant, name) in self.tools or (None, name) in self.tools

    def missing_agent(self, tenant: str | None, agent_id: str) -> str:
        return f"no agent {agent_id!r} for {_scope(tenant)}" + self._rejected(
            "agent", tenant, agent_id
        )

    def missing_tool(self, tenant: str | None, name: str) -> str:
        return (
            f"unknown tool {name!r}: neither a built-in tool ({_listed(self.known_tools)}) "
            f"nor a kind: tool for {_scope(tenant)}" + self._rejected("tool", tenant, name)
        )

    def factory_list(self) -> str:
        return _listed(self.factories)

    def _rejected(self, kind: str, tenant: str | None, name: str) -> str:
        entry = self.withdrawn.get((kind, tenant, name)) or self.withdrawn.get((kind, None, name))
        if entry is None:
            return ""
        return f" ({entry.source}:{entry.line} defines it, but that file was rejected)"


def _error(entry: Entry, path: FieldPath, message: str) -> CatalogError:
    return CatalogError(entry.source, entry.line_of(path), field_name(path), message)


def _listed(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)) or "none"


def _scope(tenant: str | None) -> str:
    return f"tenant {tenant!r}" if tenant is not None else "every tenant"


def _duplicates(entries: list[Entry]) -> Iterator[CatalogError]:
    first: dict[tuple[str, str | None, str], Entry] = {}
    for entry in entries:
        spec = entry.spec
        name = "" if isinstance(spec, RoutingSpec) else spec.id
        key = (spec.kind, spec.tenant, name)
        if (earlier := first.setdefault(key, entry)) is entry:
            continue
        what = f"a second routing for {_scope(spec.tenant)}"
        if name:
            what = f"a second {spec.kind} {name!r} for {_scope(spec.tenant)}"
        path: FieldPath = ("tenant",) if spec.tenant is not None else ("kind",)
        yield _error(
            entry,
            ("id",) if name else path,
            f"{what} (the first is at {earlier.source}:{earlier.line})",
        )


def _agent_errors(entry: Entry, spec: AgentSpec, names: _Names) -> Iterator[CatalogError]:
    tool_names = [ref.name for ref in spec.tools]
    for index, name in enumerate(tool_names):
        if not names.has_tool(spec.tenant, name):
            yield _error(entry, ("tools", index, "name"), names.missing_tool(spec.tenant, name))
    yield from _repeated(entry, "tools", tool_names, "tool")
    for index, agent_id in enumerate(spec.sub_agents):
        path: FieldPath = ("sub_agents", index)
        if agent_id == spec.id:
            yield _error(entry, path, "an agent cannot be its own sub-agent")
        elif not names.has_agent(spec.tenant, agent_id):
            yield _error(entry, path, names.missing_agent(spec.tenant, agent_id))
    yield from _repeated(entry, "sub_agents", spec.sub_agents, "sub-agent")


def _middleware_errors(
    entry: Entry, middleware: list[MiddlewareRef], known: Collection[str]
) -> Iterator[CatalogError]:
    for index, ref in enumerate(middleware):
        if ref.name not in known:
            listed = ", ".join(sorted(known)) or "none"
            message = f"unknown middleware {ref.name!r}: expected one of {listed}"
            yield _error(entry, ("middleware", index, "name"), message)


def _tool_errors(entry: Entry, spec: ToolInstanceSpec, names: _Names) -> Iterator[CatalogError]:
    if spec.factory not in names.factories:
        message = f"unknown tool factory {spec.factory!r}: expected one of {names.factory_list()}"
        yield _error(entry, ("factory",), message)
    if spec.id in names.known_tools:
        yield _error(entry, ("id",), f"{spec.id!r} is a built-in tool's name; choose another id")


def _routing_errors(entry: Entry, spec: RoutingSpec, names: _Names) -> Iterator[CatalogError]:
    if not names.has_agent(spec.tenant, spec.default_agent):
        message = names.missing_agent(spec.tenant, spec.default_agent)
        yield _error(entry, ("default_agent",), message)
    for index, rule in enumerate(spec.rules):
        if not names.has_agent(spec.tenant, rule.agent):
            message = f"rule {rule.id!r}: {names.missing_agent(spec.tenant, rule.agent)}"
            yield _error(entry, ("rules", index, "agent"), message)
    rule_ids = [rule.id for rule in spec.rules]
    for index, rule_id in _later_repeats(rule_ids):
        yield _error(entry, ("rules", index, "id"), f"a second rule {rule_id!r}")


def _repeated(entry: Entry, field: str, values: list[str], what: str) -> Iterator[CatalogError]:
    for index, value in _later_repeats(values):
        yield _error(entry, (field, index), f"{what} {value!r} is listed twice")


def _later_repeats(values: list[str]) -> Iterator[tuple[int, str]]:
    """Each value that already appeared earlier in ``values``, with its index."""
    seen: set[str] = set()
    for index, value in enumerate(values):
        if value in seen:
            yield index, value
        seen.add(value)
