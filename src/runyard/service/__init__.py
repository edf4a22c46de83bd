"""The service: runs per thread, the event log, the event buses, the served catalog, tools.

Its rooms (docs/architecture.md, "Inside the service"): ``manager`` (``RunManager`` starts,
confirms and cancels runs, one open run per thread, decided by the database), ``ownership``
(leases, takeover, the crash sweep, remote cancels, expiry, the queue), ``runs`` (one run's
segment, journal, checkpoints, and ``RunFinisher``, the one way any run ends), ``catalog`` (the
served catalog, ``CatalogAgents``, and ``default_agent``, the ``assistant`` that ``runyard serve``
offers without one), ``threads`` (an owner's threads and their rich history), ``background``
(``BackgroundTasks`` and ``read_background_tasks``), ``event_log`` (``EventLog`` numbers,
persists, publishes and replays each thread's events), ``bus``, ``tools`` (orchestration tools)
and ``api_keys`` (issuing and verifying API keys). The names below are the public ones.
"""

from runyard.protocol import ORCHESTRATOR_ID
from runyard.service.agent_choice import (
    AgentChoice,
    AgentDirectory,
    AgentRequest,
    FixedAgents,
    RunEntry,
    ServedAgent,
    ServedTool,
)
from runyard.service.background.status import BackgroundTaskView, read_background_tasks
from runyard.service.background.tasks import BackgroundTask, BackgroundTasks
from runyard.service.catalog.admin import AgentVersions, CatalogAdmin
from runyard.service.catalog.agents import CatalogAgents, ModelFor, compile_agent
from runyard.service.catalog.default_agent import (
    DEFAULT_AGENT,
    DEMO_MODEL,
    choose_model,
    default_agent,
)
from runyard.service.catalog.follow import (
    CatalogFeed,
    CatalogFeedError,
    CatalogFeedUpdate,
    SpecKey,
    spec_key,
)
from runyard.service.catalog.middleware import (
    BUILTIN_MIDDLEWARE,
    agent_middleware,
    catalog_middleware,
)
from runyard.service.catalog.reload import (
    CatalogChange,
    apply_catalog,
    catalog_change,
    read_catalog_files,
    reload_catalog,
)
from runyard.service.catalog.secrets import SECRET_HEADER, catalog_secrets
from runyard.service.catalog.served import (
    DEFAULT_CATALOG_DIR,
    catalog_directory,
    open_catalog,
    open_followed_catalog,
)
from runyard.service.catalog.served_memory import served_memory
from runyard.service.catalog.state import CatalogState
from runyard.service.catalog.tools import (
    BUILTIN_TOOLS,
    CatalogTools,
    catalog_tool_names,
    discover_factories,
    load_served_catalog,
)
from runyard.service.catalog.watch import watch_catalog
from runyard.service.errors import (
    AgentRequired,
    AgentVersionNotFound,
    AgentVersionUnavailable,
    ConcurrencyLimited,
    ConfirmationAnswered,
    ConfirmationExpired,
    ConfirmationNotFound,
    ErrorKind,
    InvalidAgentSpec,
    InvalidAnswer,
    InvalidThreadId,
    LimitReached,
    RateLimited,
    RunActive,
    RunBusy,
    ServiceError,
    ServiceStopping,
    ThreadNotFound,
    UnknownAgent,
)
from runyard.service.event_log import (
    EventLog,
    EventLogWriteError,
    EventReader,
    EventWriter,
    LiveEvent,
)
from runyard.service.event_log.chunks import ChunkMapper, UnmappedToolEventWarning, WireToolEvent
from runyard.service.limits import (
    CONCURRENT_RUNS_RETRY_AFTER,
    AgentLimits,
    TenantLimits,
    run_quota,
)
from runyard.service.manager.request_rate import Admission, RequestRate
from runyard.service.manager.run_manager import RunManager
from runyard.service.owner import Owner
from runyard.service.ownership.crash_sweep import (
    DATABASE_UNAVAILABLE,
    RESTARTED,
    close_interrupted_runs,
)
from runyard.service.ownership.leases import Heartbeat, LeaseTerms, lost_leases, new_instance_id
from runyard.service.ownership.suspension_expiry import (
    APPROVAL_EXPIRED,
    SWEEP_EVERY_SECONDS,
    end_expired_suspensions,
)
from runyard.service.parts import ServiceParts
from runyard.service.redacting_store import RedactingStore, redacted_model
from runyard.service.runs.active import ActiveRun, CancelReason
from runyard.service.runs.checkpoints import RunCheckpoints
from runyard.service.runs.confirmation_request import confirmation_payload, is_filesystem_request
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.service.runs.follow import FollowedRun, FollowStopped, RunPause, follow_run
from runyard.service.runs.log_scan import newest_event
from runyard.service.threads.listing import Threads, thread_json
from runyard.service.threads.thread_transcripts import (
    RunTranscript,
    ThreadTranscripts,
    read_transcripts,
)
from runyard.service.threads.transcript import TranscriptEntry
from runyard.service.threads.views import ThreadStatus
from runyard.telemetry.run_telemetry import RunTelemetry

__all__ = [
    "BUILTIN_MIDDLEWARE",
    "BUILTIN_TOOLS",
    "DEFAULT_CATALOG_DIR",
    "AgentChoice",
    "AgentDirectory",
    "AgentRequest",
    "RunEntry",
    "AgentRequired",
    "AgentVersionNotFound",
    "AgentVersionUnavailable",
    "AgentVersions",
    "CatalogAdmin",
    "CatalogAgents",
    "CatalogChange",
    "CatalogFeed",
    "CatalogFeedError",
    "CatalogFeedUpdate",
    "CatalogState",
    "CatalogTools",
    "FixedAgents",
    "FollowStopped",
    "FollowedRun",
    "ServedAgent",
    "ServedTool",
    "ModelFor",
    "agent_middleware",
    "apply_catalog",
    "catalog_change",
    "catalog_directory",
    "catalog_secrets",
    "catalog_middleware",
    "catalog_tool_names",
    "discover_factories",
    "load_served_catalog",
    "compile_agent",
    "open_catalog",
    "open_followed_catalog",
    "spec_key",
    "read_catalog_files",
    "reload_catalog",
    "watch_catalog",
    "APPROVAL_EXPIRED",
    "CONCURRENT_RUNS_RETRY_AFTER",
    "DEFAULT_AGENT",
    "DEMO_MODEL",
    "ORCHESTRATOR_ID",
    "DATABASE_UNAVAILABLE",
    "RESTARTED",
    "SWEEP_EVERY_SECONDS",
    "ActiveRun",
    "Admission",
    "AgentLimits",
    "BackgroundTask",
    "BackgroundTaskView",
    "BackgroundTasks",
    "CancelReason",
    "ChunkMapper",
    "ConcurrencyLimited",
    "ConfirmationAnswered",
    "ConfirmationExpired",
    "ConfirmationNotFound",
    "EventLog",
    "EventLogWriteError",
    "EventReader",
    "ErrorKind",
    "EventWriter",
    "Heartbeat",
    "InvalidAgentSpec",
    "InvalidAnswer",
    "LeaseTerms",
    "InvalidThreadId",
    "LimitReached",
    "LiveEvent",
    "Owner",
    "RateLimited",
    "RedactingStore",
    "RequestRate",
    "SECRET_HEADER",
    "SpecKey",
    "RunActive",
    "RunBusy",
    "ServiceStopping",
    "RunCheckpoints",
    "RunEnding",
    "RunFinisher",
    "RunManager",
    "RunPause",
    "RunTelemetry",
    "RunTranscript",
    "ServiceError",
    "ServiceParts",
    "TenantLimits",
    "ThreadNotFound",
    "ThreadStatus",
    "ThreadTranscripts",
    "Threads",
    "TranscriptEntry",
    "UnknownAgent",
    "UnmappedToolEventWarning",
    "WireToolEvent",
    "choose_model",
    "close_interrupted_runs",
    "confirmation_payload",
    "is_filesystem_request",
    "default_agent",
    "end_expired_suspensions",
    "follow_run",
    "lost_leases",
    "new_instance_id",
    "newest_event",
    "read_background_tasks",
    "redacted_model",
    "run_quota",
    "served_memory",
    "read_transcripts",
    "thread_json",
]
