"""The default agent's tools: ``calculator``, ``list_notes``, ``save_note``, ``plan``, ``delegate``,
``task_status``, ``await_task``; and the service's tool factories (``service_factories``:
``calculator``, ``notes``, ``plan``, ``delegate``, ``agent``) that build them for catalog agents."""

from runyard.service.tools.agent_tool import AgentToolFactory, AgentToolParameters
from runyard.service.tools.background import await_task, task_status
from runyard.service.tools.calculator import calculator, evaluate
from runyard.service.tools.context import SERVICE_DEPS, ServiceDeps, service_deps, thread_scope
from runyard.service.tools.delegate import ORCHESTRATION_TOOLS, delegate, delegation_errors
from runyard.service.tools.factories import (
    DelegateFactory,
    NotesFactory,
    SingleToolFactory,
    service_factories,
)
from runyard.service.tools.notes import list_notes, notes_key, save_note
from runyard.service.tools.plan import plan, tasks_update

__all__ = [
    "ORCHESTRATION_TOOLS",
    "SERVICE_DEPS",
    "AgentToolFactory",
    "AgentToolParameters",
    "DelegateFactory",
    "NotesFactory",
    "ServiceDeps",
    "SingleToolFactory",
    "await_task",
    "calculator",
    "delegate",
    "delegation_errors",
    "evaluate",
    "list_notes",
    "notes_key",
    "plan",
    "save_note",
    "service_deps",
    "service_factories",
    "task_status",
    "tasks_update",
    "thread_scope",
]
