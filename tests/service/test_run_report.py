"""What a run reports about itself: why it failed (the wire ``error`` event and one server log
line), over the demo model and over a real OpenAI adapter talking to a local server.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from service_harness import OWNER, service

from local_openai_server import LocalServer, local_openai_server
from runyard.agent import Agent
from runyard.config import Settings
from runyard.service import default_agent
from runyard.service.tools import calculator
from runyard.storage import Store

FAILED_RUN_LOGGER = "runyard.service.failed_run"


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[LocalServer]:
    async with local_openai_server() as local:
        monkeypatch.setenv("RUNYARD_OPENAI_BASE_URL", local.base_url)
        yield local


def local_assistant(store: Store) -> list[Agent]:
    """The default ``assistant``, as ``runyard serve`` builds it, on the local server's model."""
    return [default_agent(store, Settings(model="openai-compatible:local"))]


def failure_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == FAILED_RUN_LOGGER]


@pytest.mark.parametrize(
    ("status", "code", "phrase"),
    [
        (429, "rate_limit_exceeded", "429 Too Many Requests"),
        (500, None, "500 Internal Server Error"),
        (401, "invalid_api_key", "401 Unauthorized"),
    ],
)
async def test_a_provider_refusal_reaches_the_error_event_the_finish_and_the_log(
    sqlite_url: str,
    server: LocalServer,
    caplog: pytest.LogCaptureFixture,
    status: int,
    code: str | None,
    phrase: str,
) -> None:
    server.fail_with(status, "the provider says no", code)
    async with service(sqlite_url, local_assistant) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]

    content = f"openai-compatible:local answered HTTP {phrase}: the provider says no"
    assert [e.type for e in log] == ["run-start", "error", "run-finish"]
    expected_error = {"content": content, "statusCode": status, "provider": "openai-compatible"}
    if code is not None:
        expected_error["code"] = code
    assert log[1].payload.model_dump(mode="json", by_alias=True, exclude_none=True) == (
        expected_error
    )
    assert log[2].payload.status == "error"
    assert log[2].payload.reason == content
    (line,) = failure_lines(caplog)
    assert line.levelno == logging.ERROR
    assert line.getMessage() == (
        f"run {run_id} failed: thread=t1 agent=assistant provider=openai-compatible "
        f"status={status}: {content}"
    )


async def test_the_demo_model_fails_on_request_like_a_provider(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with service(sqlite_url) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "hello\n/fail 503")
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]

    assert [e.type for e in log] == ["run-start", "error", "run-finish"]
    error = log[1].payload
    assert (error.status_code, error.provider) == (503, "runyard")
    assert log[2].payload.status == "error"
    (line,) = failure_lines(caplog)
    assert line.getMessage().startswith(
        f"run {run_id} failed: thread=t1 agent=assistant provider=runyard status=503: "
        "runyard:demo answered HTTP 503 Service Unavailable"
    )


async def test_a_failure_that_is_not_the_providers_is_logged_once_without_provider(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    def one_turn(_: Store) -> list[Agent]:
        return [Agent(name="assistant", model="runyard:demo", tools=[calculator], max_iterations=1)]

    async with service(sqlite_url, one_turn) as svc:
        run_id = await svc.runs.start(OWNER, "t1", '/tool calculator {"expression": "1+1"}')
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]

    (error,) = [e for e in log if e.type == "error"]
    assert (error.payload.status_code, error.payload.provider) == (None, None)
    assert log[-1].payload.status == "error"
    (line,) = failure_lines(caplog)
    assert line.getMessage().startswith(
        f"run {run_id} failed: thread=t1 agent=assistant provider=- status=-: "
        "Agent loop exceeded 1 iterations"
    )


async def test_a_completed_run_logs_no_failure(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")

    assert failure_lines(caplog) == []
