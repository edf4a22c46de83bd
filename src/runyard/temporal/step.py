"""What a workflow and the agent-step activity exchange: ``AgentStepInput`` in,
``AgentStepOutput`` out, ``AgentStepProgress`` in the activity's heartbeats, ``ConfirmInput``
for the confirm activity.

Plain dataclasses of JSON values, so Temporal's default converter stores them in the workflow's
history and a workflow imports them inside its sandbox: nothing here may import gRPC or do I/O.
The fields' annotations are objects, not strings (no ``from __future__ import annotations``): the
converter resolves them from this module's globals, which a workflow's sandbox may not hold.
"""

from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "AGENT_STEP",
    "CONFIRM",
    "AgentStepInput",
    "AgentStepOutput",
    "AgentStepProgress",
    "ConfirmInput",
    "PendingConfirmation",
    "StepContext",
    "StepStatus",
    "StepUsage",
]

AGENT_STEP = "runyard.agent_step"
"""The agent-step activity's registered name."""

CONFIRM = "runyard.confirm"
"""The confirm activity's registered name."""

StepStatus = Literal["completed", "suspended", "cancelled", "error"]


@dataclass(frozen=True)
class StepContext:
    """What routing rules read of the request (``InvocationContext`` without the tenant and
    user, which the worker's credentials decide)."""

    user_role: str = ""
    ui_page: str = ""
    flags: dict[str, bool] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentStepInput:
    """One step of an agent on a thread.

    ``message`` starts a run; empty, the step follows the thread's run on (after a ``Confirm``)
    from ``after_event_id``. ``idempotency_key`` (one per step, the same on every attempt: the
    workflow id and the step's number) makes a retried step follow the run its first attempt
    started instead of starting a second one.
    """

    thread_id: str
    message: str = ""
    idempotency_key: str = ""
    agent_id: str | None = None
    after_event_id: int = 0
    context: StepContext = field(default_factory=StepContext)


@dataclass(frozen=True)
class PendingConfirmation:
    """A tool call waiting for a person: answer it with the confirm activity."""

    request_id: str
    tool_call_id: str
    tool: str
    args: dict[str, Any]
    message: str = ""
    input_type: str = ""
    severity: str = ""


@dataclass(frozen=True)
class StepUsage:
    """The run's tokens, and its cost in USD when a price is known."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost: float | None = None


@dataclass(frozen=True)
class AgentStepOutput:
    """Where the step left the run: ``completed``, ``suspended`` (see
    ``pending_confirmations``), ``cancelled`` or ``error`` (see ``error``)."""

    thread_id: str
    run_id: str
    status: StepStatus
    text: str
    pending_confirmations: list[PendingConfirmation] = field(default_factory=list)
    usage: StepUsage = field(default_factory=StepUsage)
    error: str = ""
    last_event_id: int = 0
    output: dict[str, Any] | None = None

    def then(self, later: "AgentStepOutput") -> "AgentStepOutput":
        """This step followed on by ``later``, a step of the same run after an answer: the
        texts joined, the rest as ``later`` left it."""
        return replace(later, text=self.text + later.text)


@dataclass(frozen=True)
class AgentStepProgress:
    """A heartbeat's details: how far the step got (a retried attempt goes on from here), and
    ``tokens``, the orchestrator's text streamed since the previous heartbeat."""

    run_id: str = ""
    last_event_id: int = 0
    text: str = ""
    tokens: str = ""
    pending_confirmations: list[PendingConfirmation] = field(default_factory=list)


@dataclass(frozen=True)
class ConfirmInput:
    """A person's answer to a ``PendingConfirmation``."""

    request_id: str
    approved: bool
    reason: str = ""
