"""Which agent runs a thread's run: ``AgentChoice``, and the ``AgentDirectory`` seam that makes it.

A thread's choice is stored in its metadata (``agent``, and ``agentVersion`` and ``ruleId`` when
it has them), so a confirm after a restart resumes on the agent, and the version, the run
started with. Two directories: ``FixedAgents`` (agents given in code, the built-in ``assistant``)
and ``CatalogAgents`` (a catalog, routed by ``runyard.routing``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

from runyard.agent import Agent
from runyard.registry import LimitsSpec
from runyard.service.errors import AgentVersionNotFound, UnknownAgent
from runyard.service.limits import AgentLimits

__all__ = [
    "RUN_ENTRIES",
    "AgentChoice",
    "AgentDirectory",
    "AgentRequest",
    "FixedAgents",
    "RunEntry",
    "ServedAgent",
    "ServedTool",
]

RunEntry = Literal["http", "grpc", "temporal", "openai", "agui", "ai-sdk", "mcp", "langgraph"]
"""How a run came in: ``POST /v1/chat`` (``http``, the web UI's way too), the gRPC surface
(``grpc``; ``temporal`` when runyard's Temporal activity made the call), or a face
(``openai``, ``agui``, ``ai-sdk``, ``mcp``, ``langgraph``)."""

RUN_ENTRIES: tuple[RunEntry, ...] = get_args(RunEntry)


_KEYS = ("agent", "agentVersion", "ruleId", "runEntry")
"""The thread metadata keys of a choice."""


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """The agent of a run, at which version (None: agents given in code have none), and why."""

    agent_id: str
    version: str | None = None
    rule_id: str | None = None
    reason: str = "default"
    """``explicit``, ``rule``, ``default`` (routing's reasons) or ``thread`` (the thread's own)."""
    entry: RunEntry | None = None
    """How the thread's latest run came in (None: a thread from before entries were kept)."""

    def recorded_in(self, metadata: Mapping[str, Any]) -> dict[str, Any]:
        """``metadata`` with this choice recorded in it (and nothing left of an earlier one)."""
        kept = {key: value for key, value in metadata.items() if key not in _KEYS}
        recorded = {
            "agent": self.agent_id,
            "agentVersion": self.version,
            "ruleId": self.rule_id,
            "runEntry": self.entry,
        }
        return kept | {key: value for key, value in recorded.items() if value is not None}

    @classmethod
    def stored(cls, metadata: Mapping[str, Any]) -> AgentChoice | None:
        """The choice recorded in a thread's metadata; None when it has none."""
        agent_id = metadata.get("agent")
        if not isinstance(agent_id, str):
            return None
        version, rule_id = metadata.get("agentVersion"), metadata.get("ruleId")
        entry = metadata.get("runEntry")
        return cls(
            agent_id,
            version if isinstance(version, str) else None,
            rule_id if isinstance(rule_id, str) else None,
            "thread",
            entry if entry in RUN_ENTRIES else None,
        )


@dataclass(frozen=True, slots=True)
class AgentRequest:
    """What a chat request says about its agent: a name, and the routing context of the caller
    (``user_role``, ``ui_page``, ``flags``, ``metadata``; tenant and user come from its owner)."""

    agent_id: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    version: str | None = None
    """Pins a version (content hash) of the named agent: the catalog's, or one stored in the
    database (the OpenAI-compatible face's ``model: "agent@version"``)."""
    entry: RunEntry = "http"
    """How the run came in: a span attribute, a metric label, and ``/status``'s ``entry``."""


@dataclass(frozen=True, slots=True)
class ServedTool:
    """One tool of a served agent, as capability listings (gRPC ``ListAgents``) show it."""

    name: str
    description: str
    requires_approval: bool
    """Every call waits for a person's approval."""
    may_require_approval: bool
    """A policy decides per call whether it waits."""


@dataclass(frozen=True, slots=True)
class ServedAgent:
    """One agent as listings show it (``GET /v1/agents``, the start-up report)."""

    name: str
    model: str
    tools: tuple[str, ...]
    default: bool = False
    """The agent a request gets when it names none and no rule matches."""
    tenant: str | None = None
    """Whose spec it is (catalog agents; None: shared, or not from a catalog)."""
    version: str | None = None
    description: str = ""
    tool_details: tuple[ServedTool, ...] = ()
    """``tools`` with their descriptions and approval gates, in the same order."""
    limits: LimitsSpec | None = None
    """What one run may use (catalog agents; None: agents given in code)."""

    @classmethod
    def of(cls, agent: Agent, **fields: Any) -> ServedAgent:
        tools = [agent.tools[name] for name in sorted(agent.tools)]
        details = tuple(
            ServedTool(t.name, t.description, t.requires_approval, t.needs_approval is not None)
            for t in tools
        )
        names = tuple(t.name for t in tools)
        return cls(agent.name, agent.model_label, names, tool_details=details, **fields)


class AgentDirectory(Protocol):
    """Chooses the agent of a run and hands out the agent of a choice."""

    def choose(
        self, tenant: str, user: str, request: AgentRequest, thread: AgentChoice | None
    ) -> AgentChoice:
        """The agent of a new run. ``thread`` is the thread's stored choice (None: a new thread).
        Raises ``UnknownAgent`` for a named agent the tenant does not have."""
        ...

    async def agent(self, tenant: str, choice: AgentChoice) -> Agent:
        """The runnable agent of ``choice`` (``AgentVersionUnavailable`` when it is gone).
        Asynchronous: a catalog may have to read an older version from its database."""
        ...

    def loaded(self) -> Iterable[Agent]:
        """Every agent built so far (their checkpoint stores are the runs' checkpoints)."""
        ...

    def served(self, tenant: str | None) -> list[ServedAgent]:
        """The agents ``tenant`` may run, the default first (None: every tenant's)."""
        ...

    def limits(self, tenant: str, choice: AgentChoice) -> AgentLimits:
        """How many new runs of ``choice``'s agent ``tenant`` may start per minute, and have
        running at once."""
        ...


class FixedAgents:
    """Agents given by name; a thread runs ``default`` unless a request names another, and keeps
    the agent it ran last when the next request names none."""

    def __init__(self, agents: Mapping[str, Agent], default: str) -> None:
        if default not in agents:
            raise ValueError(f"default agent {default!r} is not among the agents")
        self.agents = dict(agents)
        self.default = default

    def choose(
        self, tenant: str, user: str, request: AgentRequest, thread: AgentChoice | None
    ) -> AgentChoice:
        if request.agent_id is not None:
            self._named(request.agent_id)
            if request.version is not None:  # agents given in code have no versions
                raise AgentVersionNotFound(request.agent_id, request.version)
            return AgentChoice(request.agent_id, reason="explicit")
        if thread is not None and thread.agent_id in self.agents:
            return AgentChoice(thread.agent_id, reason="thread")
        return AgentChoice(self.default)

    async def agent(self, tenant: str, choice: AgentChoice) -> Agent:
        return self._named(choice.agent_id)

    def loaded(self) -> Iterable[Agent]:
        return self.agents.values()

    def served(self, tenant: str | None) -> list[ServedAgent]:
        ordered = sorted(self.agents.values(), key=lambda a: (a.name != self.default, a.name))
        return [ServedAgent.of(agent, default=agent.name == self.default) for agent in ordered]

    def limits(self, tenant: str, choice: AgentChoice) -> AgentLimits:
        return AgentLimits()  # agents given in code have no limits of their own

    def _named(self, name: str) -> Agent:
        found = self.agents.get(name)
        if found is None:
            raise UnknownAgent(name, sorted(self.agents))
        return found
