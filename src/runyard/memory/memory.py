"""``Memory``: the facade the runtime talks to (``MemoryProtocol``), over one ``Store``.

Tiers, each optional except the first: the recent window of the thread, working memory,
semantic recall, observational memory, plans and titles. Everything is keyed by tenant, user
(``resource_id``) and thread; a store never returns one user's rows to another.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic_ai.models import Model

from runyard.config import get_settings
from runyard.errors import ConfigurationError
from runyard.memory.config import SemanticRecallConfig, TitleConfig, WorkingMemoryConfig
from runyard.memory.observational import ObservationalConfig, ObservationalMemory
from runyard.memory.plans import Plan, PlanStore
from runyard.memory.recall import SemanticRecall
from runyard.memory.window import merge_history, trim_leading_tool_results
from runyard.memory.working_memory import WorkingMemory
from runyard.messages import AgentMessage, CustomMessage
from runyard.models import resolve_model
from runyard.runtime import (
    AgentModel,
    CheckpointStore,
    MemoryContext,
    MemoryScope,
    agent_model,
)
from runyard.storage import Store, StoreCheckpointStore

__all__ = ["Memory"]

log = logging.getLogger(__name__)

Message = AgentMessage | CustomMessage


class Memory:
    """Conversation memory for agents, kept in a ``Store``.

    - ``last_messages``: how many of the thread's latest messages reach the model
      (``RUNYARD_LAST_MESSAGES``, 20). With observational memory on, the window is instead
      every message the observation log does not cover yet.
    - ``semantic_recall``: a ``SemanticRecallConfig``; None = on only when
      ``RUNYARD_EMBEDDER_MODEL`` is set; False = off.
    - ``working_memory``: a ``WorkingMemoryConfig``, True for the default one, None/False = off.
    - ``observational``: an ``ObservationalConfig``, True for the one from ``RUNYARD_*``,
      None/False = off.
    - ``title_generation``: True or a ``TitleConfig`` to name threads after their first turn.

    Call ``aclose()`` when done: it stops the background observation jobs this object owns
    (the store stays open; it belongs to the caller).
    """

    def __init__(
        self,
        store: Store,
        last_messages: int | None = None,
        semantic_recall: SemanticRecallConfig | bool | None = None,
        working_memory: WorkingMemoryConfig | bool | None = None,
        observational: ObservationalConfig | bool | None = None,
        title_generation: TitleConfig | bool | None = None,
    ) -> None:
        settings = get_settings()
        self.store = store
        self.last_messages = settings.last_messages if last_messages is None else last_messages
        if self.last_messages < 0:
            raise ConfigurationError("last_messages must be 0 or more")
        recall = _recall_config(semantic_recall, settings.embedder_model)
        self.recall = SemanticRecall(store, recall) if recall else None
        working = WorkingMemoryConfig() if working_memory is True else working_memory or None
        self.working_memory = WorkingMemory(store, working) if working else None
        observed = ObservationalConfig() if observational is True else observational or None
        self.observational = ObservationalMemory(store, observed) if observed else None
        titles = TitleConfig() if title_generation is True else title_generation or None
        self.title_config = titles
        self.title_model: Model | None = (
            resolve_model(titles.model) if titles and titles.model is not None else None
        )
        """The model that names threads, when it is not the agent's own."""
        self.plans = PlanStore(store)
        self._checkpoints = StoreCheckpointStore(store, ttl_seconds=settings.checkpoint_ttl_seconds)

    # -- MemoryProtocol -----------------------------------------------------------------------

    @property
    def checkpoint_store(self) -> CheckpointStore:
        """Checkpoints in the same store, so a suspended run resumes in any process sharing it."""
        return self._checkpoints

    @property
    def generates_titles(self) -> bool:
        """True when threads get a generated title after their first substantial turn."""
        return self.title_config is not None

    async def history(
        self,
        scope: MemoryScope,
        input_messages: Sequence[AgentMessage],
        *,
        model: Model | AgentModel,
    ) -> list[Message]:
        """The thread's recent window, plus recalled messages similar to the input."""
        window = trim_leading_tool_results(await self._window(scope))
        if self.recall is None:
            return window
        query = " ".join(m.text for m in input_messages if m.role == "user" and m.text)
        inputs = {m.id for m in input_messages}
        recalled = [m for m in await self.recall.recall(scope, query) if m.id not in inputs]
        return merge_history(window, recalled)

    async def context(self, scope: MemoryScope, *, model: Model | AgentModel) -> MemoryContext:
        """Working memory and observations for the system prompt; the working-memory tool."""
        blocks: list[str] = []
        tools = []
        if self.working_memory is not None:
            tools.append(self.working_memory.tool)
            if block := await self.working_memory.prompt_block(scope):
                blocks.append(block)
        observational = self.observational
        asked = agent_model(model)
        if observational is not None and (block := await observational.prompt_block(scope, asked)):
            blocks.append(block)
        return MemoryContext(instructions="\n\n".join(blocks) or None, tools=tools)

    async def save(
        self, scope: MemoryScope, messages: Sequence[Message], *, model: Model | AgentModel
    ) -> None:
        """Upsert the turn's messages, embed the new ones, and let observation catch up."""
        await self.store.save_messages(
            scope.thread_id,
            messages,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
        )
        if self.recall is not None:
            await self.recall.index(scope, messages)
        if self.observational is not None:
            self.observational.after_save(scope, agent_model(model))

    async def get_title(self, scope: MemoryScope) -> str | None:
        """The thread's title, if it has one."""
        thread = await self.store.get_thread(
            scope.thread_id, tenant_id=scope.tenant_id, resource_id=scope.resource_id
        )
        return thread.title if thread is not None else None

    async def set_title(self, scope: MemoryScope, title: str) -> None:
        """Name the thread."""
        await self.store.set_thread_title(
            scope.thread_id, title, tenant_id=scope.tenant_id, resource_id=scope.resource_id
        )

    # -- plans, working memory, lifecycle -----------------------------------------------------

    async def get_plan(self, scope: MemoryScope) -> Plan | None:
        """The thread's plan, or None."""
        return await self.plans.get(scope)

    async def save_plan(self, scope: MemoryScope, plan: Plan) -> Plan:
        """Replace the thread's plan."""
        return await self.plans.save(scope, plan)

    async def get_working_memory(self, scope: MemoryScope) -> str | None:
        """The working-memory document this scope sees (None when the tier is off or empty)."""
        if self.working_memory is None:
            return None
        return await self.working_memory.get(scope)

    async def wait_idle(self) -> None:
        """Wait for background observation to finish (tests, shutdown)."""
        if self.observational is not None:
            await self.observational.wait_idle()

    async def aclose(self) -> None:
        """Cancel and await the background work this object started."""
        if self.observational is not None:
            await self.observational.aclose()

    # -- internals ----------------------------------------------------------------------------

    async def _window(self, scope: MemoryScope) -> list[Message]:
        if self.observational is not None:
            return await self.observational.window(scope)
        if self.last_messages == 0:
            return []
        return await self.store.get_messages(
            scope.thread_id,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            limit=self.last_messages,
        )


def _recall_config(
    given: SemanticRecallConfig | bool | None, env_embedder: str
) -> SemanticRecallConfig | None:
    if isinstance(given, SemanticRecallConfig):
        return given
    if given is False or (given is None and not env_embedder):
        return None
    if not env_embedder:
        raise ConfigurationError(
            "semantic_recall=True needs an embedder: set RUNYARD_EMBEDDER_MODEL "
            "or pass SemanticRecallConfig(embedder=...)"
        )
    return SemanticRecallConfig(embedder=env_embedder)
