"""Memory for agents: the recent window, working memory, semantic recall, observational memory,
plans and thread titles, over one ``runyard.storage.Store``.

``Memory`` implements the runtime's ``MemoryProtocol``; pass it as ``Agent(memory=...)``.
"""

from runyard.memory.config import (
    MemoryScopeKind,
    SemanticRecallConfig,
    TitleConfig,
    WorkingMemoryConfig,
)
from runyard.memory.memory import Memory
from runyard.memory.observational import ObservationalConfig
from runyard.memory.plans import Plan, PlanIteration, PlanPhase, PlanStore, PlanTask, TaskStatus
from runyard.memory.working_memory import WORKING_MEMORY_TOOL

__all__ = [
    "WORKING_MEMORY_TOOL",
    "Memory",
    "MemoryScopeKind",
    "ObservationalConfig",
    "Plan",
    "PlanIteration",
    "PlanPhase",
    "PlanStore",
    "PlanTask",
    "SemanticRecallConfig",
    "TaskStatus",
    "TitleConfig",
    "WorkingMemoryConfig",
]
