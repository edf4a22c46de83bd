"""What ``runyard serve`` says once it listens: where, who may call it, with which database, bus,
memory, agents and model.

DESIGN.md §7: no hidden fallbacks. When no provider is configured the report says, in so many
words, that the offline demo model is answering; a model string that will probably fail against
the server it points at (the Responses API on an OpenAI-compatible server) gets a warning.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from rich.console import Console
from rich.text import Text

from runyard.cli.display import describe_database, http_url, is_loopback, redact_url
from runyard.config import Settings
from runyard.http import TENANT_HEADER, USER_HEADER
from runyard.observability import otlp_endpoint, resolve_format
from runyard.service import DEMO_MODEL
from runyard.service.bus import Delivery

__all__ = ["AgentSummary", "ServeReport", "print_report"]

_OPENAI_API = "https://api.openai.com/v1"
_RESPONSES_PREFIX = "openai:"
"""pydantic-ai's prefix for OpenAI's Responses API (``openai-chat:`` is Chat Completions)."""


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One served agent: its name, its model string and its tools' names."""

    name: str
    model: str
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServeReport:
    """Everything the start-up report states."""

    url: str
    role: str
    """What this replica does with runs (``RUNYARD_ROLE``), in a line."""
    auth: tuple[str, ...]
    """How callers are authenticated and who may use the admin API, one line each."""
    database: str
    event_bus: str
    memory: tuple[str, ...]
    agents: tuple[AgentSummary, ...]
    grpc: str | None
    """The address gRPC listens on; None: off (``--grpc-port 0``)."""
    notices: tuple[str, ...] = ()
    observability: tuple[tuple[str, str], ...] = ()
    """Where metrics are, whether traces are exported and how logs are written: (label, line)."""
    catalog: str | None = None
    """Where the agents come from: the catalog's directory, or the leader a follower follows."""

    @classmethod
    def of(
        cls,
        settings: Settings,
        host: str,
        port: int,
        agents: tuple[AgentSummary, ...],
        rejected: tuple[str, ...] = (),
        environ: Mapping[str, str] = os.environ,
        catalog: str | None = None,
        grpc: str | None = None,
        delivery: Delivery = "live",
    ) -> ServeReport:
        """The report for a server bound to ``host:port`` with ``settings`` (and ``environ``);
        ``rejected`` are the errors of the catalog files it refused, ``catalog`` the directory
        its agents come from (None: the built-in agent), ``grpc`` the address gRPC listens on
        (None: off), ``delivery`` its event bus's."""
        bus = (
            f"Redis {redact_url(settings.redis_url)}"
            if settings.redis_url
            else "in-process (one server; set RUNYARD_REDIS_URL to share events between replicas)"
        )
        if delivery == "polling":
            bus += " (unreachable: polling the event log)"
        return cls(
            url=http_url(host, port),
            role=_role(settings),
            auth=_auth(settings),
            database=describe_database(settings.database_url),
            event_bus=bus,
            memory=_memory(settings),
            agents=agents,
            grpc=grpc,
            catalog=_catalog_row(catalog, settings),
            observability=_observability(settings, http_url(host, port), environ),
            notices=(
                *_auth_notices(settings, host),
                *(f"catalog file rejected: {error}" for error in rejected),
                *_polling_notice(settings, delivery),
                *_demo_notice(settings, agents, catalog),
                *_responses_api_warnings(agents, environ.get("OPENAI_BASE_URL", "")),
            ),
        )


def print_report(console: Console, report: ServeReport) -> None:
    """Print the report and flush it (so logs and pipes see it at once)."""
    console.print(
        Text.assemble(
            ("runyard ", "bold"), (_version(), "dim"), " serving ", (report.url, "bold cyan")
        )
    )
    rows = [("API docs", f"{report.url}/docs")]
    rows.extend(("" if i else "auth", line) for i, line in enumerate(report.auth))
    rows.append(("database", report.database))
    rows.append(("event bus", report.event_bus))
    rows.extend(("" if i else "memory", tier) for i, tier in enumerate(report.memory))
    if report.catalog is not None:
        rows.append(("catalog", report.catalog))
    for agent in report.agents:
        tools = f" ({', '.join(agent.tools)})" if agent.tools else ""
        rows.append(("agent", f"{agent.name}{tools}, model {agent.model}"))
    grpc = (
        f"{report.grpc} (runyard.v1, health and reflection; docs/grpc.md)"
        if report.grpc is not None
        else "off (--grpc-port 0)"
    )
    rows.append(("gRPC", grpc))
    rows.append(("role", report.role))
    rows.extend(report.observability)
    for label, value in rows:
        # Paths and URLs must stay copyable: no wrapping, whatever the terminal width.
        console.print(Text.assemble((f"{label:<10} ", "dim"), value), soft_wrap=True)
    for warning in report.notices:
        console.print(Text(warning, style="yellow"), soft_wrap=True)
    console.print(Text("Press Ctrl-C to stop.", style="dim"))
    console.file.flush()


def _role(settings: Settings) -> str:
    if settings.role == "api":
        return (
            "api: accepts requests and streams events; its runs are queued for worker replicas "
            "(RUNYARD_ROLE)"
        )
    if settings.role == "worker":
        return (
            f"worker: executes queued runs, {settings.worker_concurrency} at once "
            "(RUNYARD_ROLE, RUNYARD_WORKER_CONCURRENCY)"
        )
    return "all: runs execute in the replica that accepts them (RUNYARD_ROLE)"


def _catalog_row(catalog: str | None, settings: Settings) -> str | None:
    if catalog is None:
        return None
    if settings.catalog_source:
        return f"{catalog} (follower: the leader's catalog, changes applied live)"
    return f"{catalog} (watched for changes)"


def _demo_notice(
    settings: Settings, agents: tuple[AgentSummary, ...], catalog: str | None
) -> tuple[str, ...]:
    demo = [agent.name for agent in agents if agent.model == DEMO_MODEL]
    if not demo:
        return ()
    if catalog is not None:  # the catalog names its models: nothing was left unconfigured
        return (
            f"The catalog {catalog} gives {', '.join(demo)} the offline demo model {DEMO_MODEL}; "
            "name a provider's model in its spec to use a real one.",
        )
    if settings.model == DEMO_MODEL:  # asked for by name: no need to say that nothing is configured
        return (f"Answering with the offline demo model {DEMO_MODEL} (RUNYARD_MODEL).",)
    return (
        f"No model provider is configured: answering with the offline demo model {DEMO_MODEL}. "
        "Set RUNYARD_MODEL, or a provider key such as OPENAI_API_KEY, to use a real model.",
    )


def _observability(
    settings: Settings, url: str, environ: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """The metrics, tracing and logs lines (docs/observability.md)."""
    access = (
        "Authorization: Bearer <RUNYARD_METRICS_TOKEN>"
        if settings.metrics_token
        else "open, no auth (set RUNYARD_METRICS_TOKEN to require one)"
    )
    endpoint = otlp_endpoint(settings.otlp_endpoint, environ)
    if endpoint is None:
        tracing = "off (set OTEL_EXPORTER_OTLP_ENDPOINT or RUNYARD_OTLP_ENDPOINT to export traces)"
    else:
        content = (
            ", with message contents (redacted)" if settings.trace_content else ", no contents"
        )
        tracing = f"on, OTLP/HTTP to {redact_url(endpoint)}{content}"
    logs = f"{resolve_format(settings.log_format, sys.stderr)} to stderr (RUNYARD_LOG_FORMAT)"
    return (("metrics", f"{url}/metrics, {access}"), ("tracing", tracing), ("logs", logs))


def _polling_notice(settings: Settings, delivery: Delivery) -> tuple[str, ...]:
    if delivery == "live":
        return ()
    return (
        f"Redis at {redact_url(settings.redis_url)} does not answer: serving anyway. Runs go on "
        "and event streams get every event by checking the event log every "
        f"{settings.bus_poll_seconds:g}s (RUNYARD_BUS_POLL_SECONDS); live delivery resumes by "
        "itself once Redis answers.",
    )


def _auth(settings: Settings) -> tuple[str, ...]:
    """What RUNYARD_AUTH means for this server, then who may use the admin API."""
    if settings.auth == "keys":
        operator = (
            f"; admin keys of tenant {settings.operator_tenant} manage every tenant's agents"
            if settings.operator_tenant
            else ""
        )
        return (
            "API keys (RUNYARD_AUTH=keys): every request needs Authorization: Bearer <key>",
            f"admin API: keys with the role admin, for their own tenant's agents{operator}",
        )
    admin = (
        "admin API: Authorization: Bearer <RUNYARD_ADMIN_TOKEN>"
        if settings.admin_token
        else "admin API off (set RUNYARD_ADMIN_TOKEN to turn it on)"
    )
    if settings.auth == "proxy":
        return (
            f"trusted proxy (RUNYARD_AUTH=proxy): requests act for the headers {TENANT_HEADER} "
            f"and {USER_HEADER}, unchecked: only an authenticating proxy may reach this port",
            admin,
        )
    return (
        "NO AUTHENTICATION (RUNYARD_AUTH=none): every request acts for tenant 'default', "
        "user 'default'",
        admin,
    )


def _auth_notices(settings: Settings, host: str) -> tuple[str, ...]:
    notices = []
    if settings.auth == "none" and not is_loopback(host):
        notices.append(
            f"Serving on {host} with no authentication (--insecure): anyone who can reach this "
            "port acts as the one user."
        )
    if settings.auth == "keys" and settings.admin_token:
        notices.append("RUNYARD_ADMIN_TOKEN is ignored with RUNYARD_AUTH=keys: admin keys are.")
    return tuple(notices)


def _memory(settings: Settings) -> tuple[str, ...]:
    """One line per optional tier, as ``runyard.service.catalog.served_memory`` builds them."""
    return (_recall(settings), _observational(settings))


def _recall(settings: Settings) -> str:
    if not settings.embedder_model:
        return "semantic recall off (set RUNYARD_EMBEDDER_MODEL to turn it on)"
    return (
        f"semantic recall on, embedder {settings.embedder_model}, "
        f"top {settings.semantic_recall_top_k} matches"
    )


def _observational(settings: Settings) -> str:
    if not settings.observational_memory:
        return "observational memory off (set RUNYARD_OBSERVATIONAL_MEMORY=true to turn it on)"
    observer = settings.observer_model or "the agent's model"
    return (
        f"observational memory on, observer {observer}, raw messages kept under "
        f"{settings.observer_message_tokens} tokens, observations condensed past "
        f"{settings.reflector_observation_tokens}"
    )


def _responses_api_warnings(agents: tuple[AgentSummary, ...], base_url: str) -> tuple[str, ...]:
    # "openai:" is OpenAI's Responses API (POST /responses), which OpenAI-compatible servers
    # (vLLM, Ollama, llama.cpp, LM Studio, most gateways) do not serve: only Chat Completions.
    if not base_url or base_url.rstrip("/") == _OPENAI_API:
        return ()
    return tuple(
        f"Agent {agent.name} uses {agent.model}, OpenAI's Responses API, at OPENAI_BASE_URL "
        f"{redact_url(base_url)}; most OpenAI-compatible servers only speak Chat Completions: "
        f"use openai-chat:{agent.model.removeprefix(_RESPONSES_PREFIX)} instead "
        "(RUNYARD_MODEL; see docs/models.md)."
        for agent in agents
        if agent.model.startswith(_RESPONSES_PREFIX)
    )


def _version() -> str:
    try:
        return version("runyard")
    except PackageNotFoundError:
        return "(source)"
