"""What ``runyard serve`` reports at start-up, from its settings and the agents it built."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from runyard.cli import app
from runyard.cli.display import is_loopback
from runyard.cli.serve_report import AgentSummary, ServeReport, print_report
from runyard.config import Settings

ASSISTANT = AgentSummary("assistant", "runyard:demo", ("calculator", "save_note"))


def _printed(report: ServeReport) -> str:
    console = Console(record=True, width=60, color_system=None)
    print_report(console, report)
    return console.export_text()


def test_the_report_names_url_docs_database_bus_agents_and_grpc(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'r.db'}",
        redis_url="",
        grpc_port=9001,
        embedder_model="",
    )
    text = _printed(
        ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,), grpc="127.0.0.1:9001")
    )
    lines = text.splitlines()
    assert lines[0].startswith("runyard ")
    assert lines[0].endswith("serving http://127.0.0.1:8400")
    assert lines[1:10] == [
        "API docs   http://127.0.0.1:8400/docs",
        "auth       NO AUTHENTICATION (RUNYARD_AUTH=none): every request acts for tenant "
        "'default', user 'default'",
        "           admin API off (set RUNYARD_ADMIN_TOKEN to turn it on)",
        f"database   SQLite file {tmp_path / 'r.db'}",
        "event bus  in-process (one server; set RUNYARD_REDIS_URL to share events between replicas)",
        "memory     semantic recall off (set RUNYARD_EMBEDDER_MODEL to turn it on)",
        "           observational memory off (set RUNYARD_OBSERVATIONAL_MEMORY=true to turn it on)",
        "agent      assistant (calculator, save_note), model runyard:demo",
        "gRPC       127.0.0.1:9001 (runyard.v1, health and reflection; docs/grpc.md)",
    ]
    assert (
        "No model provider is configured: answering with the offline demo model runyard:demo."
        in text
    )
    assert lines[-1] == "Press Ctrl-C to stop."


def test_a_real_model_gets_no_demo_warning_and_passwords_stay_hidden() -> None:
    settings = Settings(
        database_url="postgresql://ann:secret@db:5432/runyard",
        redis_url="redis://:hunter2@cache:6379/0",
    )
    agent = AgentSummary("assistant", "openai:gpt-4o-mini")
    text = _printed(ServeReport.of(settings, "::1", 8400, (agent,), environ={}))
    assert "serving http://[::1]:8400" in text
    assert "database   PostgreSQL postgresql://ann:***@db:5432/runyard" in text
    assert "event bus  Redis redis://:***@cache:6379/0" in text
    assert "agent      assistant, model openai:gpt-4o-mini" in text
    assert "secret" not in text
    assert "hunter2" not in text
    assert "demo" not in text
    assert "Responses API" not in text


def test_a_demo_model_asked_for_by_name_is_not_called_unconfigured() -> None:
    text = _printed(ServeReport.of(Settings(model="runyard:demo"), "127.0.0.1", 8400, (ASSISTANT,)))
    assert "Answering with the offline demo model runyard:demo (RUNYARD_MODEL)." in text
    assert "No model provider is configured" not in text


def test_the_report_says_which_embedder_semantic_recall_uses() -> None:
    settings = Settings(embedder_model="openai:text-embedding-3-small", semantic_recall_top_k=3)
    text = _printed(ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,)))
    assert (
        "memory     semantic recall on, embedder openai:text-embedding-3-small, top 3 matches"
        in text.splitlines()
    )


def test_the_responses_api_on_a_custom_openai_base_url_is_warned_about() -> None:
    agents = (
        AgentSummary("assistant", "openai:qwen2.5"),
        AgentSummary("helper", "openai-chat:qwen2.5"),
    )
    environ = {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}
    report = ServeReport.of(Settings(), "127.0.0.1", 8400, agents, environ=environ)
    text = _printed(report)
    (warning,) = report.notices
    assert warning.startswith(
        "Agent assistant uses openai:qwen2.5, OpenAI's Responses API, "
        "at OPENAI_BASE_URL http://127.0.0.1:8000/v1;"
    )
    assert "use openai-chat:qwen2.5 instead" in warning
    assert " ".join(warning.split()) in " ".join(text.split())  # printed, however it wraps


@pytest.mark.parametrize(
    "base_url", ["", "https://api.openai.com/v1", "https://api.openai.com/v1/"]
)
def test_the_responses_api_at_openai_itself_gets_no_warning(base_url: str) -> None:
    agents = (AgentSummary("assistant", "openai:gpt-4o-mini"),)
    environ = {"OPENAI_BASE_URL": base_url}
    assert ServeReport.of(Settings(), "127.0.0.1", 8400, agents, environ=environ).notices == ()


def test_serve_help_lists_its_flags_and_their_environment_variables() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for text in (
        "--host",
        "--port",
        "--grpc-port",
        "--insecure",
        "--catalog",
        "RUNYARD_CATALOG_SOURCE",
        "RUNYARD_HOST",
        "RUNYARD_PORT",
        "RUNYARD_GRPC_PORT",
    ):
        assert text in result.output


def test_the_top_level_help_lists_the_commands() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("serve", "chat", "db"):
        assert command in result.output


def test_the_report_says_whether_observational_memory_is_on_and_how_it_is_tuned() -> None:
    settings = Settings(
        observational_memory=True,
        observer_model="openai:gpt-4o-mini",
        observer_message_tokens=8000,
        reflector_observation_tokens=12000,
    )
    text = _printed(ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,)))
    assert (
        "           observational memory on, observer openai:gpt-4o-mini, raw messages kept "
        "under 8000 tokens, observations condensed past 12000" in text.splitlines()
    )
    default = Settings(observational_memory=True, observer_model="")
    text = _printed(ServeReport.of(default, "127.0.0.1", 8400, (ASSISTANT,)))
    assert (
        "observational memory on, observer the agent's model, raw messages kept under 30000" in text
    )


def test_the_report_lists_every_error_of_the_catalog_files_it_refused() -> None:
    rejected = ("agents/bad.yaml:4: colour: unknown field", "agents/bad.yaml:9: model: Unknown")
    report = ServeReport.of(Settings(model="openai:gpt-4o"), "127.0.0.1", 8400, (), rejected)

    assert report.notices[:2] == tuple(f"catalog file rejected: {error}" for error in rejected)
    assert "catalog file rejected: agents/bad.yaml:4: colour: unknown field" in _printed(report)


def test_a_catalog_that_names_the_demo_model_is_not_called_unconfigured() -> None:
    agents = (ASSISTANT, AgentSummary("bookkeeper", "runyard:demo"), AgentSummary("x", "openai:o"))
    report = ServeReport.of(Settings(), "127.0.0.1", 8400, agents, environ={}, catalog="agents")
    text = _printed(report)
    assert "No model provider is configured" not in text
    assert (
        "The catalog agents gives assistant, bookkeeper the offline demo model runyard:demo; "
        "name a provider's model in its spec to use a real one." in " ".join(text.split())
    )


def test_the_report_names_where_the_catalog_comes_from() -> None:
    files = ServeReport.of(Settings(), "127.0.0.1", 8400, (ASSISTANT,), catalog="agents")
    leader = "grpc://leader:8401"
    follower = ServeReport.of(
        Settings(catalog_source=leader), "127.0.0.1", 8400, (ASSISTANT,), catalog=leader
    )
    builtin = ServeReport.of(Settings(), "127.0.0.1", 8400, (ASSISTANT,))

    assert files.catalog == "agents (watched for changes)"
    assert follower.catalog == f"{leader} (follower: the leader's catalog, changes applied live)"
    assert f"catalog    {leader} (follower" in _printed(follower)
    assert builtin.catalog is None
    assert "catalog " not in _printed(builtin)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"RUNYARD_CATALOG_SOURCE": "http://leader:8401"},
            "runyard: RUNYARD_CATALOG_SOURCE: expected grpc://host:port, got 'http://leader:8401'",
        ),
        (
            {"RUNYARD_CATALOG_SOURCE": "grpc://leader:8401", "RUNYARD_CATALOG_DIR": "agents"},
            "runyard: RUNYARD_CATALOG_DIR and --catalog (RUNYARD_CATALOG_SOURCE) both name a "
            "catalog: a follower has no catalog files of its own; unset one",
        ),
    ],
)
def test_serve_refuses_a_catalog_source_it_cannot_follow_before_it_opens_anything(
    env: dict[str, str], message: str, tmp_path: Path
) -> None:
    database = tmp_path / "never.db"
    result = CliRunner().invoke(
        app, ["serve", "--port", "0"], env={**env, "RUNYARD_DATABASE_URL": f"sqlite:///{database}"}
    )
    assert result.exit_code == 1
    assert " ".join(result.output.split()) == message
    assert not database.exists()


def test_the_report_names_the_trusted_headers_behind_a_proxy() -> None:
    settings = Settings(auth="proxy", admin_token="t0ken")
    text = _printed(ServeReport.of(settings, "0.0.0.0", 8400, (ASSISTANT,)))
    assert (
        "auth       trusted proxy (RUNYARD_AUTH=proxy): requests act for the headers "
        "X-Runyard-Tenant and X-Runyard-User, unchecked: only an authenticating proxy may "
        "reach this port" in text.splitlines()
    )
    assert "           admin API: Authorization: Bearer <RUNYARD_ADMIN_TOKEN>" in text
    assert "t0ken" not in text
    assert "NO AUTHENTICATION" not in text


def test_the_report_says_keys_are_needed_and_that_the_admin_token_is_ignored() -> None:
    settings = Settings(auth="keys", operator_tenant="ops", admin_token="t0ken")
    text = _printed(ServeReport.of(settings, "0.0.0.0", 8400, (ASSISTANT,)))
    lines = text.splitlines()
    assert (
        "auth       API keys (RUNYARD_AUTH=keys): every request needs Authorization: Bearer <key>"
        in lines
    )
    assert (
        "           admin API: keys with the role admin, for their own tenant's agents; admin "
        "keys of tenant ops manage every tenant's agents" in lines
    )
    assert "RUNYARD_ADMIN_TOKEN is ignored with RUNYARD_AUTH=keys: admin keys are." in lines


def test_no_authentication_on_a_public_address_is_said_loudly() -> None:
    text = _printed(ServeReport.of(Settings(auth="none"), "0.0.0.0", 8400, (ASSISTANT,)))
    assert (
        "Serving on 0.0.0.0 with no authentication (--insecure): anyone who can reach this "
        "port acts as the one user." in text.splitlines()
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "runyard.example.com"])
def test_serve_refuses_a_non_loopback_address_without_authentication(
    host: str, tmp_path: Path
) -> None:
    database = tmp_path / "never.db"
    result = CliRunner().invoke(
        app,
        ["serve", "--host", host, "--port", "0"],
        env={"RUNYARD_AUTH": "none", "RUNYARD_DATABASE_URL": f"sqlite:///{database}"},
    )
    assert result.exit_code == 1
    assert f"refusing to serve on {host} with RUNYARD_AUTH=none" in " ".join(result.output.split())
    assert "--insecure" in result.output
    assert not database.exists()


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.1", "::1", "localhost", "LOCALHOST"])
def test_loopback_addresses_are_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.1", "example.com", "127.0.0.1.nip.io"])
def test_other_addresses_are_not(host: str) -> None:
    assert not is_loopback(host)


def test_a_bad_setting_is_one_line_naming_the_variable(tmp_path: Path) -> None:
    database = tmp_path / "never.db"
    result = CliRunner().invoke(
        app,
        ["serve", "--port", "0"],
        env={"RUNYARD_AUTH": "bogus", "RUNYARD_DATABASE_URL": f"sqlite:///{database}"},
    )
    assert result.exit_code == 1
    assert result.output.strip() == (
        "runyard: RUNYARD_AUTH: Input should be 'none', 'keys' or 'proxy' (got 'bogus')"
    )
    assert not database.exists()


def test_the_report_says_where_metrics_are_and_that_tracing_is_off() -> None:
    settings = Settings(log_format="json")
    report = ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,), environ={})
    assert report.observability == (
        (
            "metrics",
            "http://127.0.0.1:8400/metrics, open, no auth (set RUNYARD_METRICS_TOKEN to "
            "require one)",
        ),
        (
            "tracing",
            "off (set OTEL_EXPORTER_OTLP_ENDPOINT or RUNYARD_OTLP_ENDPOINT to export traces)",
        ),
        ("logs", "json to stderr (RUNYARD_LOG_FORMAT)"),
    )


def test_the_report_names_the_otlp_endpoint_without_its_password_and_the_metrics_token() -> None:
    settings = Settings(metrics_token="scrape-token-1", trace_content=True)
    environ = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://pk:sk-lf-secret@cloud.langfuse.com/api/public/otel"
    }
    rows = dict(
        ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,), environ=environ).observability
    )
    assert rows["metrics"] == (
        "http://127.0.0.1:8400/metrics, Authorization: Bearer <RUNYARD_METRICS_TOKEN>"
    )
    assert rows["tracing"].startswith("on, OTLP/HTTP to https://")
    assert rows["tracing"].endswith(
        "cloud.langfuse.com/api/public/otel/v1/traces, with message contents (redacted)"
    )
    assert "sk-lf-secret" not in rows["tracing"]


def test_a_redis_that_does_not_answer_at_start_up_is_said_plainly() -> None:
    settings = Settings(redis_url="redis://:hunter2@cache:6379/0", bus_poll_seconds=0.5)
    text = _printed(ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,), delivery="polling"))
    assert "event bus  Redis redis://:***@cache:6379/0 (unreachable: polling the event log)" in text
    assert (
        "Redis at redis://:***@cache:6379/0 does not answer: serving anyway. Runs go on and "
        "event streams get every event by checking the event log every 0.5s "
        "(RUNYARD_BUS_POLL_SECONDS); live delivery resumes by itself once Redis answers."
    ) in " ".join(text.split())
    assert "hunter2" not in text


def test_a_redis_that_answers_gets_no_notice() -> None:
    settings = Settings(redis_url="redis://cache:6379/0")
    text = _printed(ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,), delivery="live"))
    assert "event bus  Redis redis://cache:6379/0\n" in text
    assert "does not answer" not in text


@pytest.mark.parametrize(
    ("role", "line"),
    [
        ("all", "role       all: runs execute in the replica that accepts them (RUNYARD_ROLE)"),
        (
            "api",
            "role       api: accepts requests and streams events; its runs are queued for "
            "worker replicas (RUNYARD_ROLE)",
        ),
        (
            "worker",
            "role       worker: executes queued runs, 4 at once (RUNYARD_ROLE, "
            "RUNYARD_WORKER_CONCURRENCY)",
        ),
    ],
)
def test_the_report_says_the_replicas_role(role: str, line: str) -> None:
    settings = Settings(
        database_url="postgresql://db/runyard", role=role, worker_concurrency=4, redis_url=""
    )
    assert line in _printed(ServeReport.of(settings, "127.0.0.1", 8400, (ASSISTANT,)))


@pytest.mark.parametrize(
    ("flags", "env", "role"),
    [
        (["--role", "api"], {}, "api"),
        ([], {"RUNYARD_ROLE": "worker"}, "worker"),
    ],
)
def test_serve_refuses_the_api_and_worker_roles_on_sqlite_before_it_opens_anything(
    flags: list[str], env: dict[str, str], role: str, tmp_path: Path
) -> None:
    database = tmp_path / "never.db"
    result = CliRunner().invoke(
        app,
        ["serve", "--port", "0", *flags],
        env={**env, "RUNYARD_DATABASE_URL": f"sqlite:///{database}"},
    )
    assert result.exit_code == 1
    assert " ".join(result.output.split()) == (
        f"runyard: RUNYARD_ROLE={role} (--role) needs a PostgreSQL database shared by the api "
        "and worker replicas, but RUNYARD_DATABASE_URL is sqlite: set "
        "RUNYARD_DATABASE_URL=postgresql://…, or serve with --role all (docs/deploy.md)"
    )
    assert not database.exists()
