"""The memory seam: what the loop asks of memory, defined here so the loop never knows SQL.

``runyard.memory.Memory`` implements it over a store; tests use small fakes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic_ai.models import Model

from runyard.messages import AgentMessage, CustomMessage
from runyard.runtime.agent_model import AgentModel
from runyard.runtime.state import CheckpointStore
from runyard.tools import Tool

__all__ = ["MemoryContext", "MemoryProtocol", "MemoryScope"]


@dataclass(frozen=True, slots=True)
class MemoryScope:
    """Whose memory: one thread of one user (``resource_id``) in one tenant."""

    thread_id: str
    resource_id: str
    tenant_id: str = "default"


@dataclass(slots=True)
class MemoryContext:
    """What memory adds to a run besides history: system-prompt text and tools."""

    instructions: str | None = None
    tools: list[Tool] = field(default_factory=list)


class MemoryProtocol(Protocol):
    @property
    def checkpoint_store(self) -> CheckpointStore | None:
        """A durable checkpoint store to use when the agent was given none."""
        ...

    @property
    def generates_titles(self) -> bool: ...

    @property
    def title_model(self) -> Model | None:
        """The model that names threads; ``None`` means the agent's own."""
        ...

    async def history(
        self,
        scope: MemoryScope,
        input_messages: Sequence[AgentMessage],
        *,
        model: Model | AgentModel,
    ) -> list[AgentMessage | CustomMessage]:
        """The stored messages the model should see before this turn's input."""
        ...

    async def context(self, scope: MemoryScope, *, model: Model | AgentModel) -> MemoryContext:
        """Extra instructions (working memory, observations) and tools for this run. A model
        call made for them (an observer's) goes through ``model``'s middleware."""
        ...

    async def save(
        self,
        scope: MemoryScope,
        messages: Sequence[AgentMessage | CustomMessage],
        *,
        model: Model | AgentModel,
    ) -> None:
        """Persist a turn's messages (an idempotent upsert by message id)."""
        ...

    async def get_title(self, scope: MemoryScope) -> str | None: ...

    async def set_title(self, scope: MemoryScope, title: str) -> None: ...
