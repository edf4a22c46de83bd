"""What only the LangGraph face refuses, as service errors (the app answers each by its kind,
and ``langgraph_error`` shapes the body as LangGraph Server's)."""

from __future__ import annotations

from runyard.service import ServiceError

__all__ = ["AssistantNotFound", "NotQueued", "RunNotFound", "ThreadExists"]


class ThreadExists(ServiceError):
    """``threads.create`` of an id the caller has, with ``if_exists`` ``raise``."""

    code = "thread_exists"
    kind = "conflict"

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id!r} already exists (if_exists: do_nothing returns it)")


class RunNotFound(ServiceError):
    """No run of that id on the caller's thread."""

    code = "run_not_found"
    kind = "not_found"

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(f"run {run_id!r} not found on thread {thread_id!r}")


class AssistantNotFound(ServiceError):
    """No served agent of that id for the caller's tenant."""

    code = "agent_not_found"
    kind = "not_found"

    def __init__(self, assistant_id: str) -> None:
        super().__init__(f"assistant {assistant_id!r} not found: no agent of that id is served")


class NotQueued(ServiceError):
    """``multitask_strategy`` ``enqueue`` while the thread has an open run: runyard runs one run
    per thread and keeps no queue of a thread's next inputs."""

    code = "run_active"
    kind = "running"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"a run is active on thread {thread_id!r} and runyard does not queue a thread's "
            "next run (multitask_strategy enqueue): wait for it (runs.join), or send "
            "multitask_strategy interrupt to cancel it first"
        )
