"""Response bodies of the API as models, for the OpenAPI document.

The routes build these bodies as plain dicts (the service already shapes them, and a thread's
history is large); these models describe them, and the conformance tests hold the two together.
Optional keys are left out rather than sent as ``null``: ``SkipJsonSchema[None]`` keeps
``null`` out of the schema, so the document says what clients really receive.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from runyard.config import AuthMode, Role
from runyard.messages import ContentBlock
from runyard.protocol import AgentNode, RunUsage
from runyard.service import RunEntry
from runyard.service.bus import Delivery
from runyard.storage import ApiKeyRole

__all__ = [
    "AgentInfo",
    "AgentList",
    "BackgroundTaskBody",
    "ErrorBody",
    "ErrorDetail",
    "FieldError",
    "FileBody",
    "FileTicketBody",
    "Health",
    "Me",
    "Readiness",
    "StreamTicketBody",
    "ThreadList",
    "ThreadMessage",
    "ThreadMessages",
    "ThreadStatusBody",
    "ThreadSummary",
]


class _Body(BaseModel):
    # Closed: a key a route starts sending without documenting it fails the conformance tests.
    model_config = ConfigDict(extra="forbid")


class FieldError(_Body):
    """One offending field of a request: ``body.message``, ``query.limit``, ``body``, …"""

    field: str
    message: str


class ErrorDetail(_Body):
    """What went wrong: a stable ``code``, a sentence, and the field(s) to blame."""

    code: str = Field(description="stable, e.g. run_active, thread_not_found, invalid_request")
    message: str
    field: str | SkipJsonSchema[None] = Field(
        default=None, description="the header, parameter or body field at fault"
    )
    fields: list[FieldError] | SkipJsonSchema[None] = Field(
        default=None, description="every offending field (422 invalid_request)"
    )
    limit: str | SkipJsonSchema[None] = Field(
        default=None,
        description="the limit that refused the request (429): `requests_per_minute`, "
        "`concurrent_runs` (the agent's, per tenant), `tenant_requests_per_minute`, "
        "`tenant_concurrent_runs` (the tenant's, over all its agents)",
    )
    agentId: str | SkipJsonSchema[None] = Field(
        default=None, description="the agent whose limit it is (429, an agent's limit)"
    )
    requestsPerMinute: int | SkipJsonSchema[None] = Field(
        default=None, description="the limit's new runs per minute (429 `rate_limited`)"
    )
    concurrentRuns: int | SkipJsonSchema[None] = Field(
        default=None,
        description="the limit's runs running at once (429 `concurrent_runs_limited`)",
    )
    retryAfter: int | SkipJsonSchema[None] = Field(
        default=None, description="seconds until a request is taken again (429), as `Retry-After`"
    )


class ErrorBody(_Body):
    """The body of every error response."""

    error: ErrorDetail


class ThreadSummary(_Body):
    """A thread of the caller's, as listed."""

    id: str
    title: str | None
    createdAt: int = Field(description="ms since the epoch")
    updatedAt: int = Field(description="ms since the epoch")


class ThreadList(_Body):
    """The caller's threads, most recently updated first."""

    threads: list[ThreadSummary]


class ChosenAgent(_Body):
    """The catalog agent a run ran: ``run-start``'s ``agentId`` and ``version``."""

    id: str
    version: str | SkipJsonSchema[None] = None


class ThreadMessage(_Body):
    """One message of a thread's history; an assistant message is one run, ``id`` = run id."""

    id: str
    runId: str
    role: Literal["user", "assistant"]
    createdAt: int = Field(description="ms since the epoch")
    content: str
    reasoning: str
    isStreaming: bool = Field(description="the run has no run-finish yet")
    blocks: list[ContentBlock] | SkipJsonSchema[None] = Field(
        default=None,
        description="the message's content blocks besides its text (images, audio, files, "
        "JSON, citations), in order (docs/content.md); absent when it has none",
    )
    agentTree: AgentNode | SkipJsonSchema[None] = Field(
        default=None, description="assistant messages only: the run's agent activity tree"
    )
    usage: RunUsage | SkipJsonSchema[None] = Field(
        default=None, description="assistant messages of finished runs: what the run spent"
    )
    agent: ChosenAgent | SkipJsonSchema[None] = Field(
        default=None,
        description="assistant messages of a server with a catalog: the agent (and version) "
        "routing chose for the run",
    )


class ThreadMessages(_Body):
    """The newest whole runs' messages (at most ``limit``), the cursor hand-off for the event
    stream, and the cursor to older runs."""

    threadId: str
    title: str | None
    messages: list[ThreadMessage]
    nextEventId: int = Field(description="connect with lastEventId = nextEventId - 1")
    nextCursor: str | SkipJsonSchema[None] = Field(
        default=None,
        description="present while older runs remain: pass it as `cursor` for the page before",
    )


class BackgroundTaskBody(_Body):
    """A sub-agent the open run started with ``delegate`` and ``background: true``."""

    taskId: str
    role: str
    agentId: str = Field(description="the sub-agent's agentId in the run's events")
    status: Literal["running", "completed", "error", "cancelled"]
    startedAt: int = Field(description="epoch milliseconds")


class ThreadStatusBody(_Body):
    """Whether the thread runs now or waits for a confirmation, and its background tasks."""

    hasActiveRun: bool
    isSuspended: bool
    runId: str | SkipJsonSchema[None] = Field(default=None, description="the open run, if any")
    entry: RunEntry | SkipJsonSchema[None] = Field(
        default=None,
        description="how the open run came in: `http` (`POST /v1/chat`, the web UI), `grpc`, "
        "`temporal` (runyard's Temporal activity), or a face: `openai`, `agui`, `ai-sdk`, `mcp`",
    )
    backgroundTasks: list[BackgroundTaskBody] = Field(
        description="the open run's background sub-agents, running or ended; empty without a run"
    )


class StreamTicketBody(_Body):
    """A ticket that opens this thread's event stream without the API key (an EventSource
    cannot send it): ``GET /v1/events/{threadId}?ticket=…``."""

    ticket: str = Field(description="`ryt_…`: for this thread and this key's user only")
    expiresAt: int = Field(description="epoch ms; a stream opened before then stays open")


class FileTicketBody(_Body):
    """A URL that downloads this file without the API key (an ``<img>`` or a link cannot send
    it): ``GET /v1/files/{fileId}?ticket=…``."""

    url: str = Field(description="`/v1/files/{fileId}?ticket=ryt_…`: this file only")
    expiresAt: int = Field(description="epoch ms; a download begun before then runs to its end")


class AgentInfo(_Body):
    """An agent this service runs."""

    name: str
    model: str
    tools: list[str]
    default: bool
    version: str | SkipJsonSchema[None] = Field(
        default=None, description="the spec's content hash (catalog agents)"
    )
    tenant: str | SkipJsonSchema[None] = Field(
        default=None, description="the tenant whose own spec it is; absent: shared"
    )
    description: str | SkipJsonSchema[None] = None


class AgentList(_Body):
    """The agents this service runs, the default first."""

    agents: list[AgentInfo]


class Me(_Body):
    """Whom the caller's requests act for, as ``RUNYARD_AUTH`` decided it."""

    auth: AuthMode = Field(description="the server's RUNYARD_AUTH")
    tenant: str
    user: str
    role: ApiKeyRole | SkipJsonSchema[None] = Field(
        default=None, description="the API key's role (keys only)"
    )
    keyId: str | SkipJsonSchema[None] = Field(
        default=None, description="the API key's public id, ryk_ and 12 characters (keys only)"
    )


class Health(_Body):
    """The process answers."""

    status: Literal["ok"]


class Readiness(_Body):
    """Whether the service serves (``ready``, 200) or not yet / no more (503)."""

    status: Literal["ready", "starting", "stopping"]
    role: Role = Field(
        description="what this replica does with runs (RUNYARD_ROLE, docs/deploy.md): all runs "
        "what it accepts; api queues them for workers; worker executes queued runs",
    )
    eventDelivery: Delivery | SkipJsonSchema[None] = Field(
        default=None,
        description="when ready: how event streams learn of events written on other replicas — "
        "live (the bus wakes them) or polling (Redis is unreachable: they check the event log "
        "every RUNYARD_BUS_POLL_SECONDS; still ready, nothing is lost)",
    )


class CatalogSpecBody(_Body):
    """One spec the catalog loaded."""

    kind: Literal["agent", "tool", "routing"]
    id: str | None = Field(description="null for routing")
    tenant: str | None = Field(description="null: shared by every tenant")
    version: str = Field(description="the spec's content hash")
    origin: Literal["file", "database", "leader"] = Field(
        description="a catalog file, a version the database activates (admin API), which "
        "takes the place of the file's spec with the same tenant and id, or on a follower "
        "(runyard serve --catalog grpc://host:port) its leader's catalog"
    )
    source: str = Field(
        description="file:line of its document; database:TENANT/ID (`*`: shared) for the "
        "database's; grpc://host:port for a leader's"
    )


class CatalogErrorBody(_Body):
    """One error of a rejected file: ``file:line: field: message``."""

    file: str
    line: int
    field: str
    message: str


class RejectedFileBody(_Body):
    """A file of the catalog that was not loaded, with every reason."""

    file: str
    errors: list[CatalogErrorBody]
    lastGood: bool = Field(
        description="true: the specs this file served before it broke still serve"
    )


class LoadedVersionBody(_Body):
    """An agent version compiled in this process."""

    agentId: str
    tenant: str | None
    version: str
    serving: bool = Field(
        description="false: no longer served, kept for the runs that started on it"
    )


class CatalogBody(_Body):
    """What the server's catalog serves now, and what it refused."""

    directory: str = Field(
        description="where the catalog is read from: its directory, or a follower's leader "
        "(grpc://host:port)"
    )
    origin: Literal["files", "leader"] = Field(
        description="files: read from the directory and watched; leader: followed from another "
        "runyard's StreamCatalog (runyard serve --catalog grpc://host:port)"
    )
    revision: str = Field(description="a hash of every loaded spec's kind, scope and version")
    generation: int = Field(
        description="how many times the served catalog changed since start-up (a reload that "
        "changed a spec or the rejected files)"
    )
    specs: list[CatalogSpecBody]
    rejected: list[RejectedFileBody]
    loaded: list[LoadedVersionBody] = Field(
        description="every agent version this process has compiled, old ones included"
    )


class AgentVersionBody(_Body):
    """One stored version of a catalog agent (``GET /v1/admin/agents/{id}/versions``)."""

    agentId: str
    tenant: str | None = Field(description="null: shared by every tenant")
    version: str = Field(description="the spec's content hash")
    origin: Literal["file", "api", "leader"] = Field(
        description="recorded when a catalog file served it, stored through the admin API, or "
        "recorded by a follower replica when its leader's catalog served it"
    )
    source: str = Field(
        description="file:line for a file's version, `api` for the API's, the leader's "
        "`grpc://host:port` for a follower's"
    )
    createdAt: int = Field(description="when it was first stored (epoch ms)")
    active: bool = Field(description="true: this version serves for its tenant and id now")


class StoredAgentBody(AgentVersionBody):
    """``PUT /v1/admin/agents/{id}``: the version stored (and now active)."""

    created: bool = Field(description="false: this exact spec was stored before")


class AgentVersionsBody(_Body):
    """Every stored version of one agent of one tenant, oldest first."""

    agentId: str
    tenant: str | None
    activeVersion: str | None = Field(description="the version that serves now")
    activeOrigin: Literal["file", "database", "leader"] | None = Field(
        description="whether it serves as the file's spec, as the database's activation, or "
        "(on a follower replica) as its leader's spec"
    )
    versions: list[AgentVersionBody]


class DeactivatedBody(_Body):
    """``DELETE /v1/admin/agents/{id}/active``: whether an activation was dropped."""

    agentId: str
    tenant: str | None
    deactivated: bool


class RouteDecisionBody(_Body):
    """The agent a request goes to (``runyard.routing.RouteDecision``)."""

    agentId: str
    version: str
    ruleId: str | None
    reason: Literal["explicit", "rule", "default"]


class FieldCheckBody(_Body):
    """One field test of a rule and its outcome."""

    path: str = Field(description="where the test is in the rule (`when.all[1]`)")
    field: str
    matched: bool
    explanation: str = Field(description="what the field held and how it compared")


class RuleEvaluationBody(_Body):
    """One rule of the routing, in evaluation order, and what became of it."""

    ruleId: str
    priority: int
    agentId: str
    version: str | None
    outcome: Literal["matched", "no-match", "skipped"]
    reasons: list[FieldCheckBody]


class RouteBody(_Body):
    """The dry run: the decision and every rule it read."""

    decision: RouteDecisionBody
    tenant: str
    routingTenant: str | None = Field(description="whose routing was read; null: the shared one")
    routingSource: str | None = Field(description="file:line of that routing")
    rules: list[RuleEvaluationBody]


class FileBody(_Body):
    """A stored file's metadata (``POST /v1/files``, ``GET /v1/files/{fileId}/meta``)."""

    id: str = Field(description="`file_` and 32 hex digits; name it in a message's file part")
    filename: str | None = Field(description="the name the uploader gave, if any")
    mediaType: str = Field(
        description="sniffed from the bytes (docs/files.md), never taken from the name or a "
        "header; `application/octet-stream` when nothing is recognised"
    )
    size: int = Field(description="bytes")
    sha256: str = Field(description="hex SHA-256 of the bytes")
    createdAt: int = Field(description="ms since the epoch")
