"""The Temporal bridge (layer 8, extra ``temporal``): runyard agents as steps of durable
workflows, through the gRPC surface (docs/temporal.md).

- ``AgentBridge``: the activities ``runyard.agent_step`` (a step of a run over ``Stream``,
  heartbeating batched tokens, returning an ``AgentStepOutput``) and ``runyard.confirm``.
- ``AgentConversation``: a sample workflow that talks to an agent turn by turn, pauses for a
  person's approval (the ``approve`` signal) and continues as new when it grows long.
- ``python -m runyard.temporal`` runs both; ``agent_worker`` builds that worker.

It is a client of runyard's gRPC API like any other: it reads nothing of the service directly.
"""

try:
    import temporalio  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise ImportError(
        "runyard.temporal needs the temporal extra: pip install 'runyard[temporal]'"
    ) from exc

from runyard.temporal.bridge import DEFAULT_HEARTBEAT_SECONDS, AgentBridge
from runyard.temporal.conversation import (
    AgentConversation,
    Approval,
    Conversation,
    ConversationResult,
    StepOptions,
)
from runyard.temporal.step import (
    AGENT_STEP,
    CONFIRM,
    AgentStepInput,
    AgentStepOutput,
    AgentStepProgress,
    ConfirmInput,
    PendingConfirmation,
    StepContext,
    StepStatus,
    StepUsage,
)
from runyard.temporal.worker import TASK_QUEUE, agent_worker

__all__ = [
    "AGENT_STEP",
    "CONFIRM",
    "DEFAULT_HEARTBEAT_SECONDS",
    "TASK_QUEUE",
    "AgentBridge",
    "AgentConversation",
    "AgentStepInput",
    "AgentStepOutput",
    "AgentStepProgress",
    "Approval",
    "ConfirmInput",
    "Conversation",
    "ConversationResult",
    "PendingConfirmation",
    "StepContext",
    "StepOptions",
    "StepStatus",
    "StepUsage",
    "agent_worker",
]
