"""What the service refuses, as exceptions with a stable ``code`` and a ``kind``; HTTP and gRPC
each answer a kind with one status, so the two surfaces cannot disagree about an error."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

__all__ = [
    "AgentRequired",
    "AgentVersionNotFound",
    "AgentVersionUnavailable",
    "ConcurrencyLimited",
    "ConfirmationAnswered",
    "ConfirmationExpired",
    "ConfirmationNotFound",
    "ErrorKind",
    "InvalidAgentSpec",
    "InvalidAnswer",
    "InvalidThreadId",
    "LimitReached",
    "RateLimited",
    "RunActive",
    "RunBusy",
    "ServiceError",
    "ServiceStopping",
    "ThreadNotFound",
    "UnknownAgent",
]


ErrorKind = Literal[
    "rejected",
    "invalid",
    "too_large",
    "not_found",
    "unresolved",
    "conflict",
    "running",
    "expired",
    "limited",
    "unavailable",
]
"""What kind of refusal an error is, which is all a surface needs for its status:

- ``rejected``: the request cannot be honoured as it is (HTTP 400, gRPC ``INVALID_ARGUMENT``);
- ``invalid``: a field of it is malformed (422, ``INVALID_ARGUMENT``);
- ``too_large``: a field of it is larger than the server takes (413, ``INVALID_ARGUMENT``);
- ``not_found``: what it names does not exist for the caller (404, ``NOT_FOUND``);
- ``unresolved``: nothing chose what it needs, an agent (422, ``FAILED_PRECONDITION``);
- ``conflict``: the state it acts on forbids it now (409, ``FAILED_PRECONDITION``);
- ``running``: the thread already has a run (409, ``ALREADY_EXISTS``);
- ``expired``: what it answers is over (410, ``FAILED_PRECONDITION``);
- ``limited``: a limit refused it, retry later (429, ``RESOURCE_EXHAUSTED``);
- ``unavailable``: this server cannot take it now, another may (503, ``UNAVAILABLE``).
"""


class ServiceError(Exception):
    """Base class: a request the service cannot honour; ``code`` names the problem, ``kind``
    says what kind of refusal it is (a subclass inherits its base's)."""

    code = "service_error"
    kind: ClassVar[ErrorKind] = "rejected"

    def details(self) -> dict[str, Any]:
        """What the error body says besides ``code`` and ``message`` (none by default)."""
        return {}

    def headers(self) -> dict[str, str]:
        """Response headers the refusal comes with (none by default)."""
        return {}


class ThreadNotFound(ServiceError):
    """No such thread for this tenant and user (another owner's thread is not found either)."""

    code = "thread_not_found"
    kind = "not_found"

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id!r} not found")
        self.thread_id = thread_id


class InvalidThreadId(ServiceError):
    """The thread id does not fit ``runyard.ids.THREAD_ID_PATTERN``; nothing was looked up."""

    code = "invalid_thread_id"
    kind = "invalid"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"thread id {thread_id!r} must be 1-128 of A-Z a-z 0-9 . _ : @ -",
        )
        self.thread_id = thread_id


class UnknownAgent(ServiceError):
    """The request named an agent this service does not serve (for the caller's tenant)."""

    code = "agent_not_found"
    kind = "not_found"

    def __init__(
        self, name: str, known: list[str] | None = None, tenant: str | None = None
    ) -> None:
        where = f" for tenant {tenant!r}" if tenant is not None else ""
        has = f"; this service has: {', '.join(known)}" if known is not None else ""
        super().__init__(f"no agent {name!r}{where}{has}")
        self.name = name


class AgentRequired(ServiceError):
    """The request named no agent, and the catalog has no routing for its tenant to choose one."""

    code = "agent_required"
    kind = "unresolved"


class AgentVersionUnavailable(ServiceError):
    """The version of an agent a run or a routing rule needs is neither served nor stored."""

    code = "agent_version_unavailable"
    kind = "conflict"

    def __init__(self, name: str, version: str) -> None:
        super().__init__(
            f"agent {name!r} version {version[:12]} is neither in the catalog nor in the "
            "database (it changed since the run started, and that version was never stored "
            "or no longer builds)"
        )
        self.name = name
        self.version = version


class LimitReached(ServiceError):
    """A limit of the tenant (or of its use of an agent) refused a new run; nothing was stored
    or counted. ``retry_after``: seconds until it is worth trying again (``Retry-After``)."""

    code = "limit_reached"
    kind = "limited"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(f"{message}; retry in {retry_after}s")
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class RateLimited(LimitReached):
    """The tenant started as many runs in the last minute as a ``requests_per_minute`` allows:
    the agent's (``agent_id``), or the tenant's over all its agents (``agent_id`` None).
    ``retry_after`` seconds from now the oldest leaves the window."""

    code = "rate_limited"

    def __init__(self, agent_id: str | None, limit: int, retry_after: int) -> None:
        if agent_id is None:
            what = f"this tenant may start {limit} runs per minute (tenant_requests_per_minute)"
        else:
            what = (
                f"agent {agent_id!r} takes {limit} requests per minute for this tenant "
                "(requests_per_minute)"
            )
        super().__init__(what, retry_after)
        self.agent_id = agent_id
        self.limit = limit

    def details(self) -> dict[str, Any]:
        if self.agent_id is None:
            return {
                "limit": "tenant_requests_per_minute",
                "requestsPerMinute": self.limit,
                "retryAfter": self.retry_after,
            }
        return {
            "limit": "requests_per_minute",
            "agentId": self.agent_id,
            "requestsPerMinute": self.limit,
            "retryAfter": self.retry_after,
        }


class ConcurrencyLimited(LimitReached):
    """As many of the tenant's runs are running as a ``concurrent_runs`` allows: the agent's
    (``agent_id``), or the tenant's over all its agents (``agent_id`` None)."""

    code = "concurrent_runs_limited"

    def __init__(self, agent_id: str | None, limit: int, retry_after: int) -> None:
        if agent_id is None:
            what = f"this tenant may have {limit} runs running at once (tenant_concurrent_runs)"
        else:
            what = f"agent {agent_id!r} runs {limit} runs at once for this tenant (concurrent_runs)"
        super().__init__(what, retry_after)
        self.agent_id = agent_id
        self.limit = limit

    def details(self) -> dict[str, Any]:
        scoped = {"agentId": self.agent_id} if self.agent_id is not None else {}
        return {
            "limit": "concurrent_runs" if self.agent_id is not None else "tenant_concurrent_runs",
            **scoped,
            "concurrentRuns": self.limit,
            "retryAfter": self.retry_after,
        }


class AgentVersionNotFound(ServiceError):
    """The database holds no such version of this agent (admin API), or a request pinned a
    version the agent has neither in the catalog nor in the database."""

    code = "agent_version_not_found"
    kind = "not_found"

    def __init__(self, name: str, version: str) -> None:
        super().__init__(f"agent {name!r} has no stored version {version!r}")
        self.name = name
        self.version = version


class InvalidAgentSpec(ServiceError):
    """An agent spec that validates alone but cannot serve with this catalog: a tool or
    sub-agent it names does not exist, or the runtime cannot build it. ``errors`` are
    ``(field, message)`` pairs."""

    code = "invalid_agent_spec"
    kind = "rejected"

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors))
        self.errors = errors

    def details(self) -> dict[str, Any]:
        return {"fields": [{"field": field, "message": message} for field, message in self.errors]}


class RunActive(ServiceError):
    """The thread already has a run that is running or waiting for a confirmation."""

    code = "run_active"
    kind = "running"

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"a run is already active on thread {thread_id!r} "
            "(running, or waiting for a confirmation: answer or cancel it first)"
        )
        self.thread_id = thread_id


class RunBusy(ServiceError):
    """The run is between states (say, a confirm and a cancel crossed); retry shortly."""

    code = "run_busy"
    kind = "conflict"


STOPPING_RETRY_AFTER = 5
"""Seconds a client waits before sending again what a stopping server refused (``Retry-After``);
a load balancer has sent it to another replica by then, or the server is back."""


class ServiceStopping(ServiceError):
    """This process is shutting down and takes no new run or resume; another replica (or this
    one, restarted) will."""

    code = "not_ready"
    kind = "unavailable"

    def __init__(self) -> None:
        super().__init__("the service is stopping")

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(STOPPING_RETRY_AFTER)}


class ConfirmationNotFound(ServiceError):
    """No pending or answered confirmation with this id for this tenant and user."""

    code = "confirmation_not_found"
    kind = "not_found"

    def __init__(self, request_id: str) -> None:
        super().__init__(f"confirmation request {request_id!r} not found")
        self.request_id = request_id


class ConfirmationAnswered(ServiceError):
    """The confirmation was already answered (or its run ended); it is answered only once."""

    code = "confirmation_answered"
    kind = "conflict"

    def __init__(self, request_id: str) -> None:
        super().__init__(f"confirmation request {request_id!r} was already answered")
        self.request_id = request_id


class ConfirmationExpired(ServiceError):
    """The confirmation's run waited longer than the checkpoint TTL and was ended
    (``run-finish`` ``approval_expired``); the thread takes new messages."""

    code = "confirmation_expired"
    kind = "expired"

    def __init__(self, request_id: str) -> None:
        super().__init__(
            f"confirmation request {request_id!r} expired: its run waited longer than the "
            "checkpoint TTL and has ended; send a new message instead"
        )
        self.request_id = request_id


class InvalidAnswer(ServiceError):
    """The answer does not fit what the waiting tool accepts; the question stays pending."""

    code = "invalid_answer"
    kind = "invalid"
