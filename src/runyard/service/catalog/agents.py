"""``CatalogAgents``: the agents of a catalog, routed per request and compiled once per version.

``compile_agent`` turns an ``AgentSpec`` into an ``Agent``: the model by name (through
``model_for``, by default ``runyard.models.resolve_model``), the instructions, the tools built
for it (``CatalogTools``: ``kind: tool`` instances, factories, toolkits, plain built-ins), memory
from the spec's ``memory`` section (``catalog_memory``), its ``middleware`` in order
(``catalog_middleware``), the ``output_schema`` and the run's limits. ``requests_per_minute``
and ``concurrent_runs`` limit new runs, not a run: the run manager counts them (``RequestRate``,
the runs ledger) with the numbers ``limits`` looks up here. Each version (the spec's content hash, with the versions
of the ``kind: tool`` specs it names for the tenant) is compiled once and kept while this process
lives, so a run that suspended on one version resumes on it; the catalog served
(``CatalogState``) is swapped whole when it changes (``catalog_reload``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from pydantic import ValidationError
from pydantic_ai.models import Model

from runyard.agent import Agent
from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.memory import Memory
from runyard.models import resolve_model
from runyard.observability import Metrics
from runyard.redaction import SecretRedactor
from runyard.registry import (
    AgentSpec,
    Catalog,
    CatalogEntry,
    CatalogError,
    CatalogLoad,
    MiddlewareBuildContext,
    RejectedFile,
)
from runyard.registry.tools import ToolDependencies
from runyard.routing import (
    InvocationContext,
    NoRoutingError,
    RouteDecision,
    UnknownAgentError,
    route,
)
from runyard.runtime import CheckpointStore, Middleware
from runyard.service.agent_choice import AgentChoice, AgentRequest, ServedAgent
from runyard.service.catalog.memory import catalog_memory
from runyard.service.catalog.middleware import agent_middleware
from runyard.service.catalog.secrets import catalog_secrets
from runyard.service.catalog.state import CatalogState
from runyard.service.catalog.tools import CatalogTools, ToolBuildError
from runyard.service.catalog.versions import (
    database_source,
    stored_entry,
    stored_version,
    version_at_its_file,
)
from runyard.service.errors import AgentRequired, AgentVersionUnavailable, UnknownAgent
from runyard.service.files import StoredBinaries
from runyard.service.limits import AgentLimits
from runyard.storage import AgentVersion, Store, StoreCheckpointStore
from runyard.tools import Tool

__all__ = ["KEPT_UNSERVED", "CatalogAgents", "ModelFor", "compile_agent"]

KEPT_UNSERVED = 8
"""Compiled versions kept that the catalog no longer serves, for the runs still on them."""

logger = logging.getLogger(__name__)

ModelFor = Callable[[str], "str | Model"]
"""A catalog model name → what ``Agent(model=...)`` takes (tests map names to FunctionModels)."""


def compile_agent(
    entry: CatalogEntry[AgentSpec],
    store: Store,
    settings: Settings,
    model_for: ModelFor,
    checkpoints: CheckpointStore | None = None,
    *,
    tools: Sequence[Tool],
) -> Agent:
    """The runnable agent of one spec version with ``tools`` (built by ``CatalogTools``).
    ``checkpoints`` default: its memory's (in ``store``). Whoever closes the agent closes its
    memory too. A middleware that cannot be built is a ``ConfigurationError`` naming
    ``file:line``."""
    spec, where = entry.spec, f"{entry.source}:{entry.line}: agent {entry.spec.id!r}"
    limits = spec.limits
    concurrency = limits.tool_call_concurrency
    make = (
        Agent
        if spec.runtime == "runyard" and spec.graph is None
        else _graph_agent(entry, model_for)
    )
    return make(
        name=spec.id,
        model=model_for(spec.model),
        fallback_models=[model_for(name) for name in spec.fallback_models],
        model_settings=spec.model_settings or None,
        instructions=spec.instructions,
        tools=tools,
        tool_call_concurrency=math.inf if concurrency == "unlimited" else concurrency,
        max_iterations=limits.max_iterations,
        timeout_s=limits.timeout_s,
        tool_timeout_s=limits.tool_timeout_s,
        max_output_tokens=limits.max_output_tokens,
        output_schema=spec.output_schema,
        memory=catalog_memory(spec.memory, store, settings),
        checkpoint_store=checkpoints,
        title_model=spec.memory.titles.model if spec.memory.titles is not None else None,
        middleware=_middleware(spec, model_for, where),
    )


def _graph_agent(entry: CatalogEntry[AgentSpec], model_for: ModelFor) -> Callable[..., Agent]:
    # Imported here: LangGraph loads only for a catalog that has such an agent.
    from runyard.service.catalog.graphs import graph_agent

    return graph_agent(entry, model_for)


def _middleware(spec: AgentSpec, model_for: ModelFor, where: str) -> list[Middleware]:
    context = MiddlewareBuildContext(
        spec.id, spec.tenant, lambda name: resolve_model(model_for(name))
    )
    try:
        return agent_middleware(spec, context)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{where}: {exc}") from exc


class CatalogAgents:
    """The ``AgentDirectory`` of a catalog: routes each new run (``runyard.routing``) and keeps
    one compiled agent per version, old versions included (a run suspended on one resumes on
    it; after a restart, a version no longer served is read back from the database). The
    catalog served (``CatalogState``) is replaced whole: by a reload of the files
    (``catalog_reload``) or by the database's activations (``refresh``), one change at a time
    (``changes``). ``aclose`` closes every agent it compiled.

    ``tools`` builds the agents' tools (default: the discovered factories with dependencies of
    their own, which ``aclose`` closes; the server passes the process's shared ones)."""

    def __init__(
        self,
        load: CatalogLoad,
        store: Store,
        settings: Settings,
        model_for: ModelFor = resolve_model,
        source: str = "",
        tools: CatalogTools | None = None,
        metrics: Metrics | None = None,
        kept_unserved: int = KEPT_UNSERVED,
    ) -> None:
        if kept_unserved < 1:
            raise ValueError("kept_unserved must be at least 1")
        if not load.catalog.agents:
            raise ConfigurationError(_no_agents(load))
        self.source = source
        """Where the catalog was read from (its directory, or a follower's leader)."""
        self.followed = False
        """True on a follower: the catalog is its leader's (``catalog_follow``), not files."""
        self.changes = asyncio.Lock()
        """Held while the catalog served is being replaced."""
        self.metrics = metrics or Metrics()
        """Where routing decisions and reload times are counted."""
        self._state = CatalogState(load)
        self._store = store
        self._settings = settings
        self._model_for = model_for
        self._owned_deps: ToolDependencies | None = None
        if tools is None:
            self._owned_deps = ToolDependencies(store=store, binaries=StoredBinaries(store))
            tools = CatalogTools.discover(self._owned_deps)
        self._tools = tools
        self._compiled: OrderedDict[str, Agent] = OrderedDict()
        """Compiled agents by version (and tool variant), least recently asked for first."""
        self._compiled_specs: dict[str, CatalogEntry[AgentSpec]] = {}
        self._kept_unserved = kept_unserved
        self._retired: list[Agent] = []
        """Evicted agents, closed once no run is in progress on them."""
        self._recorded: set[str] = set()
        """Versions this process stored in the database already."""
        self._activated: tuple[CatalogEntry[AgentSpec], ...] = ()
        """Every version the database activates, before it is checked against the files."""
        self._unreadable: tuple[RejectedFile, ...] = ()
        """Activated versions whose stored spec this runyard does not accept."""
        # One checkpoint store for every version: a run known only by id (the crash sweep's)
        # is then looked up once, not once per compiled agent.
        self._checkpoints = StoreCheckpointStore(store, ttl_seconds=settings.checkpoint_ttl_seconds)
        self._redactor: SecretRedactor | None = None

    @property
    def state(self) -> CatalogState:
        """The catalog served now."""
        return self._state

    @property
    def catalog(self) -> Catalog:
        return self._state.catalog

    @property
    def load(self) -> CatalogLoad:
        return self._state.files

    def teach_secrets(self, redactor: SecretRedactor) -> None:
        """Make ``redactor`` know the credentials of the catalog's tools (``catalog_secrets``)
        now and whenever the catalog served changes, before anything runs on the new one."""
        self._redactor = redactor
        redactor.learn(catalog_secrets(self.catalog))

    def compile_all(self) -> None:
        """Compile every agent now, for every tenant with ``kind: tool`` specs of its own too,
        so a spec the runtime cannot serve fails at start-up."""
        tool_tenants = {tenant for tenant, _ in self.catalog.tools if tenant is not None}
        for entry in self.catalog.agents.values():
            try:
                self._compile(entry, entry.spec.tenant)
                if entry.spec.tenant is None:
                    for tenant in sorted(tool_tenants):
                        self._compile(entry, tenant)
            except ConfigurationError as exc:
                # Said as a reload says it: the file and line of the field at fault.
                raise ConfigurationError(str(_compile_error(entry, exc))) from exc

    def compile_new(self, catalog: Catalog) -> dict[str, list[CatalogError]]:
        """Compile every agent of ``catalog`` not compiled yet; the errors of those the runtime
        cannot serve, by file (empty: all of them compiled)."""
        failures: dict[str, list[CatalogError]] = {}
        for entry in catalog.agents.values():
            try:
                self._compile(entry, entry.spec.tenant)
            except ConfigurationError as exc:
                failures.setdefault(entry.source, []).append(_compile_error(entry, exc))
        return failures

    def errors_of(
        self, entry: CatalogEntry[AgentSpec], files: Catalog | None = None
    ) -> list[CatalogError]:
        """Why ``entry`` cannot take the place of its (tenant, id) in the files' catalog (its
        tools and sub-agents must exist there, and it must compile); empty when it can."""
        catalog = files or self._state.files.catalog
        key = (entry.spec.tenant, entry.spec.id)
        others = [
            other
            for other in catalog.entries()
            if not (isinstance(other.spec, AgentSpec) and (other.spec.tenant, other.spec.id) == key)
        ]
        found = self._tools.reference_errors([*others, entry])
        errors = [error for error in found if error.file == entry.source]
        if not errors:
            errors = self.compile_new(Catalog.of([entry])).get(entry.source, [])
        return errors

    async def record_versions(self, load: CatalogLoad) -> None:
        """Store the version of every agent ``load`` serves, so it can be resumed on after a
        restart whatever the files say then."""
        for entry in load.catalog.agents.values():
            if entry.version in self._recorded:
                continue
            await self._store.save_agent_version(self._version_served(entry))
            self._recorded.add(entry.version)

    def _version_served(self, entry: CatalogEntry[AgentSpec]) -> AgentVersion:
        """The row of a version this process serves: its leader's (a follower's entries carry
        the leader's address as their source), else a file's, at its line."""
        if self.followed:
            return stored_version(entry, "leader", entry.source)
        return stored_version(entry, "file", f"{entry.source}:{entry.line}")

    def serve_files(self, load: CatalogLoad) -> CatalogState | None:
        """Serve ``load`` (compiled already: ``compile_new``) with the database's activations;
        the new state, or None when nothing served changed. Hold ``changes``."""
        return self._serve(load, self._state.database_revision)

    async def refresh(self) -> CatalogState | None:
        """Serve the database's activations when its catalog revision moved; the new state, or
        None when nothing served changed."""
        async with self.changes:
            revision = await self._store.catalog_revision()
            if revision == self._state.database_revision:
                return None
            await self._read_activations()
            return self._serve(self._state.files, revision)

    def choose(
        self, tenant: str, user: str, request: AgentRequest, thread: AgentChoice | None
    ) -> AgentChoice:
        if request.agent_id is None and thread is not None:
            # A thread keeps its agent, at the version the tenant gets now.
            return self._decide(tenant, user, AgentRequest(thread.agent_id), reason="thread")
        return self._decide(tenant, user, request)

    async def agent(self, tenant: str, choice: AgentChoice) -> Agent:
        await self._close_retired()
        version = choice.version or ""
        entry = self.catalog.agent(choice.agent_id, tenant)
        if entry is not None and entry.version == version:
            return self._compile(entry, tenant)
        stored = await self._stored_agent(tenant, choice.agent_id, version)
        self._evict()  # the newest compiled is kept: ``kept_unserved`` is at least 1
        return stored

    def loaded(self) -> Iterable[Agent]:
        return self._compiled.values()

    def limits(self, tenant: str, choice: AgentChoice) -> AgentLimits:
        entry = self.catalog.agent(choice.agent_id, tenant)
        if entry is None:
            return AgentLimits()
        limits = entry.spec.limits
        return AgentLimits(limits.requests_per_minute, limits.concurrent_runs)

    def loaded_versions(self) -> list[CatalogEntry[AgentSpec]]:
        """The spec of every version compiled in this process, served now or kept for the runs
        that started on it, in the order they were compiled."""
        return list(self._compiled_specs.values())

    def served(self, tenant: str | None) -> list[ServedAgent]:
        catalog = self.catalog
        entries = [
            entry
            for (owner, agent_id), entry in catalog.agents.items()
            if tenant is None or catalog.agent(agent_id, tenant) is entry
        ]
        listed = [self._served(catalog, entry, tenant) for entry in entries]
        return sorted(listed, key=lambda a: (not a.default, a.name, a.tenant or ""))

    async def aclose(self) -> None:
        """Close every compiled agent and its memory."""
        for agent in [*self._compiled.values(), *self._retired]:
            await _close(agent)
        self._retired.clear()
        if self._owned_deps is not None:
            await self._owned_deps.aclose()

    @property
    def tools(self) -> CatalogTools:
        """The factories and dependencies the agents' tools are built with."""
        return self._tools

    def _served(
        self, catalog: Catalog, entry: CatalogEntry[AgentSpec], tenant: str | None
    ) -> ServedAgent:
        routing = catalog.routing_for(tenant)
        default = routing is not None and routing.spec.default_agent == entry.spec.id
        return ServedAgent.of(
            self._compile(entry, tenant),
            default=default,
            tenant=entry.spec.tenant,
            version=entry.version,
            description=entry.spec.description,
            limits=entry.spec.limits,
        )

    def _serve(self, files: CatalogLoad, revision: int) -> CatalogState | None:
        before = self._state
        database: list[CatalogEntry[AgentSpec]] = []
        rejected = list(self._unreadable)
        for entry in self._activated:
            errors = self.errors_of(entry, files.catalog)
            if errors:
                rejected.append(RejectedFile(entry.source, tuple(errors)))
            else:
                database.append(entry)
        after = CatalogState(
            files, tuple(database), tuple(rejected), revision, before.generation + 1
        )
        if after.same_as(before):
            self._state = replace(after, generation=before.generation)
            return None
        self._state = after
        self._evict()
        if self._redactor is not None:
            self._redactor.learn(catalog_secrets(after.catalog))
        return after

    async def _read_activations(self) -> None:
        activated: list[CatalogEntry[AgentSpec]] = []
        unreadable: list[RejectedFile] = []
        for activation in await self._store.agent_activations():
            stored = await self._store.get_agent_version(activation.version)
            if stored is None:  # activations only name stored versions; never deleted
                continue
            try:
                activated.append(stored_entry(stored))
            except ValidationError as exc:
                source = database_source(stored.agent_id, stored.tenant)
                unreadable.append(RejectedFile(source, _unreadable(source, exc)))
        self._activated, self._unreadable = tuple(activated), tuple(unreadable)

    async def _stored_agent(self, tenant: str, agent_id: str, version: str) -> Agent:
        """The agent of a version the catalog no longer serves, from the database."""
        stored = await self._store.get_agent_version(version)
        if stored is None or stored.agent_id != agent_id or stored.tenant not in (None, tenant):
            raise AgentVersionUnavailable(agent_id, version)
        try:
            return self._compile(version_at_its_file(stored), tenant)
        except (ValidationError, ConfigurationError) as exc:
            logger.error("agent %r version %s cannot be built: %s", agent_id, version[:12], exc)
            raise AgentVersionUnavailable(agent_id, version) from exc

    def _decide(
        self, tenant: str, user: str, request: AgentRequest, reason: str | None = None
    ) -> AgentChoice:
        context = InvocationContext.model_validate(
            {**request.context, "tenant": tenant, "user": user}
        )
        try:
            decision = route(self.catalog, context, agent_id=request.agent_id)
        except UnknownAgentError as exc:
            raise UnknownAgent(exc.agent_id, tenant=tenant) from exc
        except NoRoutingError as exc:
            raise AgentRequired(str(exc)) from exc
        if reason is None:  # a new choice, not the thread keeping its agent
            self._count(context, decision)
        if request.version is not None:
            return AgentChoice(decision.agent_id, request.version, reason="explicit")
        return AgentChoice(
            decision.agent_id, decision.version, decision.rule_id, reason or decision.reason
        )

    def _count(self, context: InvocationContext, decision: RouteDecision) -> None:
        """Count the decision, and a mismatch: no rule matched, or the request named another
        agent than the rules would give it."""
        tenant, agent = context.tenant, decision.agent_id
        rule = decision.rule_id or decision.reason
        self.metrics.routing_decisions.labels(tenant, agent, rule).inc()
        mismatch: str | None = "no_rule" if decision.reason == "default" else None
        if decision.reason == "explicit":
            try:
                ruled = route(self.catalog, context)
            except (NoRoutingError, UnknownAgentError):
                ruled = None
            if ruled is None or ruled.reason == "default":
                mismatch = "no_rule"
            elif ruled.agent_id != agent:
                mismatch = "explicit_differs"
        if mismatch is not None:
            self.metrics.routing_mismatch.labels(tenant, agent, mismatch).inc()

    def _compile(self, entry: CatalogEntry[AgentSpec], tenant: str | None) -> Agent:
        variant = self._tools.variant(entry, self.catalog, tenant)
        key = f"{entry.version}+{variant}" if variant else entry.version
        compiled = self._compiled.get(key)
        if compiled is not None:
            self._compiled.move_to_end(key)
            return compiled
        tools = self._tools.build(entry, self.catalog, tenant)
        compiled = compile_agent(
            entry, self._store, self._settings, self._model_for, self._checkpoints, tools=tools
        )
        self._compiled[key] = compiled
        self._compiled_specs[entry.version] = entry
        return compiled

    def _evict(self) -> None:
        """Keep at most ``kept_unserved`` compiled versions the catalog no longer serves (the
        least recently asked for go first), never one a run is in progress on; an evicted
        version a run asks for again (a resume, a pinned request) is compiled again from the
        database (``_stored_agent``). Every edit or activation compiles a version: without a
        bound, each stayed for the process's life."""
        served = {entry.version for entry in self.catalog.agents.values()}
        unserved = [k for k in self._compiled if k.partition("+")[0] not in served]
        for key in unserved[: max(len(unserved) - self._kept_unserved, 0)]:
            agent = self._compiled[key]
            if agent.running:
                continue
            del self._compiled[key]
            self._retired.append(agent)
        versions = [key.partition("+")[0] for key in self._compiled]
        for version in set(self._compiled_specs) - set(versions):
            del self._compiled_specs[version]
        kept = sum(version not in served for version in versions)
        self.metrics.agents_loaded.labels("true").set(len(versions) - kept)
        self.metrics.agents_loaded.labels("false").set(kept)

    async def _close_retired(self) -> None:
        """Close the evicted agents no run is in progress on (a run handed one just before it
        was evicted keeps it open until it ends)."""
        idle = [agent for agent in self._retired if not agent.running]
        self._retired = [agent for agent in self._retired if agent.running]
        for agent in idle:
            await _close(agent)


async def _close(agent: Agent) -> None:
    await agent.aclose()
    if isinstance(agent.memory, Memory):
        await agent.memory.aclose()


def _unreadable(source: str, exc: ValidationError) -> tuple[CatalogError, ...]:
    return tuple(
        CatalogError(source, 0, ".".join(str(p) for p in error["loc"]) or "spec", error["msg"])
        for error in exc.errors()
    )


def _compile_error(entry: CatalogEntry[AgentSpec], exc: ConfigurationError) -> CatalogError:
    """``compile_agent``'s refusal as a catalog error: a tool's carries its own; else its message
    after ``file:line: agent 'x': ``, on the field it starts with when that is a field of the
    spec."""
    if isinstance(exc, ToolBuildError):
        return exc.error
    where = f"{entry.source}:{entry.line}: agent {entry.spec.id!r}: "
    message = str(exc).removeprefix(where)
    named = message.split(":", 1)[0].split(" ", 1)[0]
    field = named if named in AgentSpec.model_fields else "id"
    # The error names its field already: the message need not say it again.
    message = message.removeprefix(f"{field}: ")
    return CatalogError(entry.source, entry.line_of((field,)), field, message)


def _no_agents(load: CatalogLoad) -> str:
    rejected = "".join(f"\n  {error}" for error in load.errors)
    return f"the catalog has no agents to serve{':' if rejected else ''}{rejected}"
