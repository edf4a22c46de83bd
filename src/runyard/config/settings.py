"""Every ``RUNYARD_*`` setting in one typed model, with the defaults DESIGN.md §4 gives."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["AuthMode", "LogFormat", "Role", "Settings", "get_settings"]

AuthMode = Literal["none", "keys", "proxy"]
LogFormat = Literal["auto", "json", "text"]
"""How the HTTP service learns who a request acts for (docs/security.md, "Auth modes")."""
Role = Literal["all", "api", "worker"]
"""What a replica does with runs (docs/deploy.md): run the ones it accepts (``all``), queue them
for workers (``api``), or execute queued runs (``worker``)."""


class Settings(BaseSettings):
    """Read once from the environment (and an optional ``.env`` file); prefix ``RUNYARD_``."""

    model_config = SettingsConfigDict(env_prefix="RUNYARD_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///runyard.db",
        description="sqlite:///path or postgresql://…; the store behind memory, runs and events",
    )
    redis_url: str = Field(default="", description="redis://…; empty = in-process event bus")
    bus_poll_seconds: float = Field(
        default=1.0,
        gt=0,
        description="while Redis is unreachable, how often each followed thread's event log "
        "is checked for new events (event streams keep flowing by polling)",
    )
    model: str = Field(
        default="",
        description='"provider:model" for the default agent; empty = first configured provider, else the demo model',
    )
    catalog_dir: str = Field(
        default="",
        description="the catalog of agents to serve (docs/catalog.md), watched for changes; "
        "empty = ./agents when it exists, else the built-in assistant",
    )
    catalog_source: str = Field(
        default="",
        description="grpc://host:port: follow another runyard's catalog (its StreamCatalog) "
        "instead of files, changes applied live (docs/grpc.md); empty = RUNYARD_CATALOG_DIR",
    )
    catalog_source_key: str = Field(
        default="",
        description="the API key sent to RUNYARD_CATALOG_SOURCE when it needs one (an admin key "
        "of its operator tenant sees every tenant's specs)",
    )
    catalog_poll_seconds: float = Field(
        default=1.0,
        gt=0,
        description="how often the catalog's database revision is read, so an agent version "
        "stored or activated through another replica serves here too",
    )
    auth: AuthMode = Field(
        default="none",
        description="none = no authentication, every request acts for tenant and user "
        "'default'; keys = an API key (Authorization: Bearer) on every request; proxy = trust "
        "the X-Runyard-Tenant and X-Runyard-User headers an authenticating proxy sets",
    )
    operator_tenant: str = Field(
        default="",
        description="with RUNYARD_AUTH=keys, the tenant whose admin keys manage every tenant's "
        "agents and the shared ones; empty = admin keys manage their own tenant's only",
    )
    admin_token: str = Field(
        default="",
        description="with RUNYARD_AUTH=none or proxy, the bearer token of the /v1/admin "
        "routes; empty = the admin API is off (with keys, admin keys are the credential)",
    )
    last_messages: int = Field(default=20, ge=0, description="recent-window size")
    embedder_model: str = Field(
        default="", description="embedding model; empty = semantic recall off"
    )
    semantic_recall_top_k: int = Field(default=5, ge=1, description="semantic recall matches")
    observational_memory: bool = Field(
        default=False,
        description="observational memory for the served agents (tuned by the three below)",
    )
    observer_model: str = Field(
        default="", description="observer/reflector model; empty = the agent's"
    )
    observer_message_tokens: int = Field(default=30_000, ge=1, description="observer trigger")
    reflector_observation_tokens: int = Field(default=40_000, ge=1, description="reflector trigger")
    host: str = Field(default="127.0.0.1", description="HTTP bind address")
    port: int = Field(default=8400, ge=0, le=65535, description="HTTP port")
    grpc_port: int = Field(
        default=8401, ge=0, le=65535, description="gRPC port; 0 = off; not derived from port"
    )
    cors_origins: str = Field(
        default="",
        description="browser origins allowed to call the API (CORS), comma-separated; * = any",
    )
    egress_allow: str = Field(
        default="",
        description="internal hosts, addresses and networks tools may reach anyway, "
        "comma-separated (wiki.corp.example,*.svc.cluster.local,10.20.0.0/16); "
        "empty = tools reach public addresses only",
    )
    redact_patterns: list[str] = Field(
        default=[],
        description="regular expressions of more secrets to redact from logs, error bodies, "
        'events and stored state, as a JSON list (["acme_[0-9a-f]{32}"]); a group named '
        "secret limits the redaction to that group",
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1,
        description="largest accepted request body (uploads to /v1/files: RUNYARD_MAX_FILE_BYTES)",
    )
    max_inline_content_bytes: int = Field(
        default=524_288,
        ge=1,
        description="largest content block sent inline (base64, decoded) in a message; larger "
        "files are uploaded and named by file_id (docs/content.md)",
    )
    max_file_bytes: int = Field(
        default=20 * 1024 * 1024, ge=1, description="largest file POST /v1/files accepts"
    )
    tenant_file_quota_bytes: int = Field(
        default=1024 * 1024 * 1024,
        ge=0,
        description="bytes a tenant's stored files may hold together; 0 = no quota",
    )
    files_dir: str = Field(
        default="",
        description="a directory for uploaded files' bytes (their metadata stays in the "
        "database); empty = in the database, in 256 KiB rows",
    )
    files_s3_bucket: str = Field(
        default="",
        description="an S3 bucket for uploaded files' bytes instead (runyard[s3]; credentials "
        "as boto3 finds them: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY); empty = not S3",
    )
    files_s3_endpoint: str = Field(
        default="",
        description="the S3-compatible endpoint, e.g. http://minio:9000; empty = AWS",
    )
    files_s3_region: str = Field(default="", description="the bucket's region; empty = boto3's")
    tenant_requests_per_minute: int = Field(
        default=0,
        ge=0,
        description="new runs a tenant may start per minute over all its agents, counted in "
        "the database (every replica shares it); 0 = no limit",
    )
    tenant_concurrent_runs: int = Field(
        default=0,
        ge=0,
        description="runs of one tenant running at once (a run waiting for an approval is "
        "not running), counted in the database; 0 = no limit",
    )
    shutdown_grace_seconds: int = Field(
        default=10,
        ge=1,
        description="on SIGTERM, how long runs and event streams get to end",
    )
    checkpoint_ttl_seconds: int = Field(
        default=7 * 24 * 3600, ge=1, description="suspended runs older than this are swept"
    )
    instance_id: str = Field(
        default="",
        description="this process's id, owner of its run leases; empty = <host name>-<random hex>",
    )
    lease_seconds: float = Field(
        default=30.0,
        gt=0,
        description="a run's lease lasts this long unless its process renews it (every third)",
    )
    liveness_seconds: float = Field(
        default=1.0,
        ge=0,
        description="how often a process checks that the owners of other runs' leases are alive "
        "(a PostgreSQL session lock, a SQLite file lock), so a dead replica's runs are taken "
        "over in seconds; 0 = only when their lease lapses",
    )
    role: Role = Field(
        default="all",
        description="all: run what this replica accepts; api: queue runs for worker replicas; "
        "worker: execute queued runs (api and worker need PostgreSQL)",
    )
    worker_concurrency: int = Field(
        default=16,
        ge=1,
        description="with role worker: how many runs it executes at once; more wait queued",
    )
    otlp_endpoint: str = Field(
        default="",
        description="OTLP/HTTP base URL traces are exported to (/v1/traces is appended); "
        "empty = OTEL_EXPORTER_OTLP_ENDPOINT, else tracing off",
    )
    trace_content: bool = Field(
        default=False,
        description="record message texts and tool arguments and results in spans (redacted)",
    )
    log_format: LogFormat = Field(
        default="auto",
        description="json (one object per line), text, or auto: text to a terminal, else json",
    )
    metrics_token: str = Field(
        default="",
        description="bearer token GET /metrics requires; empty = /metrics is open",
    )

    @field_validator("redact_patterns")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from exc
        return patterns


def get_settings() -> Settings:
    """A fresh read of the environment (cheap; callers keep the result they need)."""
    return Settings()
