"""``CatalogAgents``: the agents of a catalog, routed per request and compiled once per version.

``compile_agent`` turns an ``AgentSpec`` into an ``Agent``: the model by name (through
``model_for``, by default ``runyard.models.resolve_model``), the instructions, the tools built
for it (``CatalogTools``: ``kind: tool`` instances, factories, toolkits, plain built-ins), memory
from the spec's ``memory`` section (``catalog_memory``), its ``middleware`` in order
(``catalog_middleware``), the ``output_schema`` and the run's limits. ``requests_per_minute``
limits new runs, not a run: the run manager counts it (``RequestRate``) with the number
``requests_per_minute`` looks up here. Each version (the spec's content hash, with the versions
of the ``kind: tool`` specs it names for the tenant) is compiled once and kept while this process
lives, so a run that suspended on one version resumes on it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence

from pydantic_ai.models import Model

from runyard.agent import Agent
from runyard.config import Settings
from runyard.errors import ConfigurationError
from runyard.memory import Memory
from runyard.models import resolve_model
from runyard.registry import AgentSpec, CatalogEntry, CatalogLoad, MiddlewareBuildContext
from runyard.registry.tools import ToolDependencies
from runyard.routing import InvocationContext, NoRoutingError, UnknownAgentError, route
from runyard.runtime import CheckpointStore, Middleware
from runyard.service.agent_choice import AgentChoice, AgentRequest, ServedAgent
from runyard.service.catalog_memory import catalog_memory
from runyard.service.catalog_middleware import agent_middleware
from runyard.service.catalog_tools import CatalogTools
from runyard.service.errors import AgentRequired, AgentVersionUnavailable, UnknownAgent
from runyard.storage import Store, StoreCheckpointStore
from runyard.tools import Tool

__all__ = ["CatalogAgents", "ModelFor", "compile_agent"]

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
    return Agent(
        name=spec.id,
        model=model_for(spec.model),
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
    one compiled agent per version. ``aclose`` closes every agent it compiled.

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
    ) -> None:
        if not load.catalog.agents:
            raise ConfigurationError(_no_agents(load))
        self.load = load
        self.source = source
        """Where the catalog was read from (its directory)."""
        self.catalog = load.catalog
        self._store = store
        self._settings = settings
        self._model_for = model_for
        self._owned_deps: ToolDependencies | None = None
        if tools is None:
            self._owned_deps = ToolDependencies(store=store)
            tools = CatalogTools.discover(self._owned_deps)
        self._tools = tools
        self._compiled: dict[str, Agent] = {}
        # One checkpoint store for every version: a run known only by id (the crash sweep's)
        # is then looked up once, not once per compiled agent.
        self._checkpoints = StoreCheckpointStore(store, ttl_seconds=settings.checkpoint_ttl_seconds)

    def compile_all(self) -> None:
        """Compile every agent now, for every tenant with ``kind: tool`` specs of its own too,
        so a spec the runtime cannot serve fails at start-up."""
        tool_tenants = {tenant for tenant, _ in self.catalog.tools if tenant is not None}
        for entry in self.catalog.agents.values():
            self._compile(entry, entry.spec.tenant)
            if entry.spec.tenant is None:
                for tenant in sorted(tool_tenants):
                    self._compile(entry, tenant)

    def choose(
        self, tenant: str, user: str, request: AgentRequest, thread: AgentChoice | None
    ) -> AgentChoice:
        if request.agent_id is None and thread is not None:
            # A thread keeps its agent, at the version the tenant gets now.
            return self._decide(tenant, user, AgentRequest(thread.agent_id), reason="thread")
        return self._decide(tenant, user, request)

    def agent(self, tenant: str, choice: AgentChoice) -> Agent:
        version = choice.version or ""
        entry = self.catalog.agent(choice.agent_id, tenant)
        if entry is not None and entry.version == version:
            return self._compile(entry, tenant)
        compiled = self._compiled.get(version)  # an agent without kind: tool specs
        if compiled is None:
            raise AgentVersionUnavailable(choice.agent_id, version)
        return compiled

    def loaded(self) -> Iterable[Agent]:
        return self._compiled.values()

    def requests_per_minute(self, tenant: str, choice: AgentChoice) -> int | None:
        entry = self.catalog.agent(choice.agent_id, tenant)
        return entry.spec.limits.requests_per_minute if entry is not None else None

    def served(self, tenant: str | None) -> list[ServedAgent]:
        entries = [
            entry
            for (owner, agent_id), entry in self.catalog.agents.items()
            if tenant is None or self.catalog.agent(agent_id, tenant) is entry
        ]
        listed = [self._served(entry, tenant) for entry in entries]
        return sorted(listed, key=lambda a: (not a.default, a.name, a.tenant or ""))

    def _served(self, entry: CatalogEntry[AgentSpec], tenant: str | None) -> ServedAgent:
        routing = self.catalog.routing_for(tenant)
        default = routing is not None and routing.spec.default_agent == entry.spec.id
        return ServedAgent.of(
            self._compile(entry, tenant),
            default=default,
            tenant=entry.spec.tenant,
            version=entry.version,
            description=entry.spec.description,
        )

    async def aclose(self) -> None:
        """Close every compiled agent and its memory."""
        for agent in self._compiled.values():
            await agent.aclose()
            if isinstance(agent.memory, Memory):
                await agent.memory.aclose()
        if self._owned_deps is not None:
            await self._owned_deps.aclose()

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
        return AgentChoice(
            decision.agent_id, decision.version, decision.rule_id, reason or decision.reason
        )

    def _compile(self, entry: CatalogEntry[AgentSpec], tenant: str | None) -> Agent:
        variant = self._tools.variant(entry, self.catalog, tenant)
        key = f"{entry.version}+{variant}" if variant else entry.version
        compiled = self._compiled.get(key)
        if compiled is None:
            tools = self._tools.build(entry, self.catalog, tenant)
            compiled = compile_agent(
                entry, self._store, self._settings, self._model_for, self._checkpoints, tools=tools
            )
            self._compiled[key] = compiled
        return compiled


def _no_agents(load: CatalogLoad) -> str:
    rejected = "".join(f"\n  {error}" for error in load.errors)
    return f"the catalog has no agents to serve{':' if rejected else ''}{rejected}"
