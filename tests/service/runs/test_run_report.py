"""What a run reports about itself: why it failed (the wire ``error`` event and one server log
line), over the demo model and over a real OpenAI adapter talking to a local server; and what
it spent (``usage`` on ``run-finish`` and on its row of the thread's messages).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from service_harness import OWNER, service

from local_openai_server import LocalServer, local_openai_server
from runyard.agent import Agent
from runyard.config import Settings
from runyard.memory import Memory
from runyard.protocol import event_to_dict
from runyard.service import Threads, default_agent
from runyard.service.tools import calculator, delegate, save_note
from runyard.storage import Store
from runyard.testing import ScriptExhaustedError, Turn, TurnUsage, call, scripted_model, text

FAILED_RUN_LOGGER = "runyard.service.runs.failed"


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
        f"run {run_id} failed: thread=acme/alice/t1 agent=assistant provider=openai-compatible "
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
        f"run {run_id} failed: thread=acme/alice/t1 agent=assistant provider=runyard status=503: "
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
        f"run {run_id} failed: thread=acme/alice/t1 agent=assistant provider=- status=-: "
        "max_iterations: Agent loop exceeded 1 iterations"
    )


async def test_a_completed_run_logs_no_failure(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")

    assert failure_lines(caplog) == []


def scripted_assistant(*turns: Turn) -> Callable[[Store], list[Agent]]:
    """``assistant`` on a scripted model, with the service's approval-gated and delegate tools."""

    def build(store: Store) -> list[Agent]:
        model = scripted_model(list(turns))
        tools = [calculator, save_note, delegate]
        return [Agent(name="assistant", model=model, tools=tools, memory=Memory(store))]

    return build


def usage_of(input_tokens: int, output_tokens: int) -> TurnUsage:
    return TurnUsage(input_tokens=input_tokens, output_tokens=output_tokens)


async def test_run_finish_carries_the_usage_of_every_segment_of_a_suspended_run(
    sqlite_url: str,
) -> None:
    agents = scripted_assistant(
        replace(call("save_note", {"text": "milk"}), usage=usage_of(10, 2)),
        text("Saved.", usage=usage_of(30, 5)),
    )
    async with service(sqlite_url, agents) as svc:
        await svc.runs.start(OWNER, "t1", "remember milk")
        await svc.settle("t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]
        messages = await Threads(svc.events, svc.store).messages(OWNER, "t1")

    finish = log[-1]
    assert finish.type == "run-finish"
    expected = {  # no price: no cost
        "inputTokens": 40,
        "outputTokens": 7,
        "totalTokens": 47,
        "models": ["function:scripted"],
    }
    assert event_to_dict(finish)["payload"] == {"status": "completed", "usage": expected}
    assistant = [m for m in messages["messages"] if m["role"] == "assistant"]
    assert [m["usage"] for m in assistant] == [expected]


async def test_run_finish_counts_the_sub_agents_usage(sqlite_url: str) -> None:
    briefing = {"role": "adder", "instructions": "Add.", "briefing": "1+1", "tools": ["calculator"]}
    agents = scripted_assistant(
        replace(call("delegate", briefing), usage=usage_of(10, 1)),
        text("It is 2.", usage=usage_of(100, 10)),  # the sub-agent's only turn
        text("Two.", usage=usage_of(20, 2)),
    )
    async with service(sqlite_url, agents) as svc:
        await svc.runs.start(OWNER, "t1", "what is 1+1?")
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]

    assert log[-1].type == "run-finish"
    usage = event_to_dict(log[-1])["payload"]["usage"]
    assert usage == {
        "inputTokens": 130,
        "outputTokens": 13,
        "totalTokens": 143,
        "models": ["function:scripted"],
    }


async def test_the_demo_models_run_reports_a_cost_of_zero(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]
        messages = await Threads(svc.events, svc.store).messages(OWNER, "t1")

    usage = event_to_dict(log[-1])["payload"]["usage"]
    assert usage["cost"] == 0.0
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    assert messages["messages"][-1]["usage"] == usage


async def test_a_failed_run_still_reports_what_it_spent(sqlite_url: str) -> None:
    # The script ends after the tool call: the model call that follows it fails the run.
    first = replace(call("calculator", {"expression": "1+1"}), usage=usage_of(3, 1))
    async with service(sqlite_url, scripted_assistant(first)) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        log = [event for _, event in await svc.log("t1")]

    finish = event_to_dict(log[-1])["payload"]
    assert finish["status"] == "error"
    assert finish["usage"] == {
        "inputTokens": 3,
        "outputTokens": 1,
        "totalTokens": 4,
        "models": ["function:scripted"],
    }


async def test_a_failure_outside_the_run_error_family_keeps_its_traceback(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # An exhausted script raises an AssertionError: a bug, not a run's ordinary failure.
    async with service(sqlite_url, scripted_assistant()) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")

    (line,) = failure_lines(caplog)
    assert line.exc_info is not None
    assert line.exc_info[0] is ScriptExhaustedError
