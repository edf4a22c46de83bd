"""``AgentConversation``: a sample workflow that talks to a runyard agent on one thread.

Each user message is a turn: the agent-step activity runs it; when the run suspends for a
person, the workflow waits for the ``approve`` signal of each pending confirmation, answers it
with the confirm activity, and follows the run on. More messages can come by the
``add_message`` signal. After ``turns_per_run`` turns (or when Temporal suggests it, as the
history grows) the workflow continues as new, carrying only what is left to say and the last
turn's output, so a conversation of any length keeps a short history.

Workflow code: deterministic, no I/O; everything it does goes through activities.
"""

from dataclasses import dataclass, field, replace
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from runyard.temporal.step import (
        AGENT_STEP,
        CONFIRM,
        AgentStepInput,
        AgentStepOutput,
        ConfirmInput,
        PendingConfirmation,
        StepContext,
    )

__all__ = ["Approval", "AgentConversation", "Conversation", "ConversationResult", "StepOptions"]


@dataclass(frozen=True)
class StepOptions:
    """How the workflow runs each activity: its timeouts and retries."""

    start_to_close_seconds: float = 600.0
    # A worker that died mid-step is noticed this soon, and the step retried on another.
    heartbeat_timeout_seconds: float = 30.0
    maximum_attempts: int = 5
    first_retry_seconds: float = 1.0


@dataclass(frozen=True)
class Conversation:
    """The workflow's input: the thread, the messages to say in order, and what a
    Continue-As-New carries over (``turns_done``, ``continued``, ``last``)."""

    thread_id: str
    messages: list[str] = field(default_factory=list)
    agent_id: str | None = None
    context: StepContext = field(default_factory=StepContext)
    turns_per_run: int = 100
    options: StepOptions = field(default_factory=StepOptions)
    turns_done: int = 0
    continued: int = 0
    last: AgentStepOutput | None = None


@dataclass(frozen=True)
class Approval:
    """The ``approve`` signal: a person's answer to a pending confirmation."""

    request_id: str
    approved: bool
    reason: str = ""


@dataclass(frozen=True)
class ConversationResult:
    """How the conversation ended: the turns taken (over every Continue-As-New), how often it
    continued as new, and the last turn's output."""

    thread_id: str
    turns: int
    continued_as_new: int
    last: AgentStepOutput | None


@workflow.defn(name="runyard.AgentConversation")
class AgentConversation:
    """Talks to an agent turn by turn, pausing for approvals (see the module's docstring)."""

    @workflow.init
    def __init__(self, conversation: Conversation) -> None:
        self._queue = list(conversation.messages)
        self._answers: dict[str, Approval] = {}
        self._waiting: list[PendingConfirmation] = []

    @workflow.signal
    def approve(self, approval: Approval) -> None:
        """Answer a pending confirmation (its ``request_id`` from ``pending_confirmations``)."""
        self._answers[approval.request_id] = approval

    @workflow.signal
    def add_message(self, message: str) -> None:
        """Say one more message after those already queued."""
        self._queue.append(message)

    @workflow.query
    def pending_confirmations(self) -> list[PendingConfirmation]:
        """The confirmations the conversation waits for now."""
        return list(self._waiting)

    @workflow.run
    async def run(self, conversation: Conversation) -> ConversationResult:
        turns, last = conversation.turns_done, conversation.last
        turns_here = 0
        while self._queue:
            if turns_here >= conversation.turns_per_run or (
                workflow.info().is_continue_as_new_suggested()
            ):
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    replace(
                        conversation,
                        messages=self._queue,
                        turns_done=turns,
                        continued=conversation.continued + 1,
                        last=last,
                    )
                )
            last = await self._turn(conversation, self._queue.pop(0), turns)
            turns, turns_here = turns + 1, turns_here + 1
        return ConversationResult(conversation.thread_id, turns, conversation.continued, last)

    async def _turn(self, conversation: Conversation, message: str, turn: int) -> AgentStepOutput:
        """One message to the end of its run, every approval on the way answered."""
        options = conversation.options
        step = AgentStepInput(
            thread_id=conversation.thread_id,
            message=message,
            # The same on every attempt of the step, unique per turn of this workflow.
            idempotency_key=f"{workflow.info().workflow_id}/turn-{turn}",
            agent_id=conversation.agent_id,
            context=conversation.context,
        )
        output = await self._step(step, options)
        while output.status == "suspended":
            self._waiting = list(output.pending_confirmations)
            for asked in output.pending_confirmations:
                approval = await self._approval(asked)
                answer = ConfirmInput(approval.request_id, approval.approved, approval.reason)
                await workflow.execute_activity(
                    CONFIRM,
                    answer,
                    start_to_close_timeout=timedelta(seconds=options.start_to_close_seconds),
                    retry_policy=_retries(options),
                )
            follow = replace(step, message="", after_event_id=output.last_event_id)
            output = output.then(await self._step(follow, options))
        return output

    async def _approval(self, asked: PendingConfirmation) -> Approval:
        """The person's answer to ``asked``, once the ``approve`` signal brings it."""
        await workflow.wait_condition(lambda: asked.request_id in self._answers)
        self._waiting = [w for w in self._waiting if w.request_id != asked.request_id]
        return self._answers.pop(asked.request_id)

    async def _step(self, step: AgentStepInput, options: StepOptions) -> AgentStepOutput:
        output: AgentStepOutput = await workflow.execute_activity(
            AGENT_STEP,
            step,
            result_type=AgentStepOutput,
            start_to_close_timeout=timedelta(seconds=options.start_to_close_seconds),
            heartbeat_timeout=timedelta(seconds=options.heartbeat_timeout_seconds),
            retry_policy=_retries(options),
        )
        return output


def _retries(options: StepOptions) -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(seconds=options.first_retry_seconds),
        maximum_attempts=options.maximum_attempts,
    )
