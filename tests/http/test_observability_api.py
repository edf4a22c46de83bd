"""Observability over HTTP: after scripted runs, ``GET /metrics`` counts them, the in-memory
exporter holds their trace tree (request → run → model calls → tools → a sub-agent under
``delegate``), and every response carries its request id."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from catalog_harness import catalog_body, models, next_generation, serving, write_catalog
from catalog_harness import run as catalog_run
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app, settled
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from runyard import Agent, tool
from runyard.memory import Memory
from runyard.observability import Tracing
from runyard.service.tools import calculator, delegate
from runyard.storage import Store
from runyard.testing import ScriptedModel, call, scripted_model, text
from runyard.testing.scripted import TurnUsage
from sqlite_databases import MigratedSqlite

SECRET = "sk-" + "x" * 40

DELEGATION = {
    "role": "math helper",
    "instructions": "You compute.",
    "briefing": "What is 2+3*4?",
    "tools": ["calculator"],
}


@tool(requires_approval=True)
async def wipe(target: str) -> str:
    """Wipe ``target`` (asks first)."""
    return f"wiped {target}"


TURNS = [
    # t1: a tool call, a failing one, a sub-agent (with a tool call of its own), an answer
    call("calculator", {"expression": "1+1"}, id="c1"),
    call("calculator", {"expression": "1+"}, id="c2"),
    call("delegate", DELEGATION, id="d1"),
    call("calculator", {"expression": "2+3*4"}, id="c3"),  # the sub-agent
    text("It is 14", usage=TurnUsage(5, 2)),  # the sub-agent
    text(f"done, key {SECRET}", usage=TurnUsage(11, 3)),
    # t2: a call approved; t3: a call denied
    call("wipe", {"target": "disk"}, id="w1"),
    text("wiped"),
    call("wipe", {"target": "db"}, id="w2"),
    text("not wiped"),
    # t4: nothing left: the run fails
]


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    yield exporter
    exporter.shutdown()


def agents(model: ScriptedModel) -> Any:
    def build(store: Store) -> list[Agent]:
        tools = [calculator, delegate, wipe]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    return build


async def chat(app: FastAPI, thread: str, message: str, until: str = "run-finish") -> str:
    """Send ``message``; the request id of the response, once the run got to ``until``."""
    async with asgi_client(app) as client:
        response = await client.post(f"/v1/chat/{thread}", json={"message": message})
    assert response.status_code == 200, response.text
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        await stream.until(until)
    return response.headers["x-request-id"]


async def answer(app: FastAPI, thread: str, approved: bool) -> None:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until("confirmation-request")
    assert frames[-1].data is not None
    request_id = frames[-1].data["payload"]["requestId"]
    async with asgi_client(app) as client:
        response = await client.post(f"/v1/confirm/{request_id}", json={"approved": approved})
    assert response.status_code == 200, response.text
    async with asgi_sse(app, f"/v1/events/{thread}?lastEventId={frames[-1].id}") as stream:
        await stream.until("run-finish")
    await settled(app, thread)


async def scripted_runs(app: FastAPI) -> None:
    await chat(app, "t1", "compute")
    await settled(app, "t1")
    await chat(app, "t2", "wipe the disk", until="confirmation-request")
    await answer(app, "t2", approved=True)
    await chat(app, "t3", "wipe the db", until="confirmation-request")
    await answer(app, "t3", approved=False)
    await chat(app, "t4", "fail")
    await settled(app, "t4")


def samples(body: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus text body by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(body)
        for s in family.samples
    }


def value(
    found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


async def test_metrics_count_a_scripted_run_its_tools_approval_denial_and_failure(url: str) -> None:
    model = scripted_model(TURNS)
    async with running_app(url, agents(model)) as app:
        await scripted_runs(app)
        label = model_label(app)
        async with asgi_client(app) as client:
            response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    found = samples(response.text)
    run = {"tenant": "acme", "agent": "assistant", "version": ""}

    def tools(tool: str, outcome: str) -> float:
        return value(found, "runyard_tool_invocations_total", **run, tool=tool, outcome=outcome)

    # c1 and the sub-agent's c3 succeed, c2 fails; w1 suspends then runs, w2 suspends and is denied
    assert tools("calculator", "success") == 2
    assert tools("calculator", "error") == 1
    assert tools("delegate", "success") == 1
    assert tools("wipe", "suspended") == 2
    assert tools("wipe", "success") == 1
    assert tools("wipe", "denied") == 1
    latency = "runyard_agent_latency_seconds_count"
    # segments: t1, t2 (suspended, then resumed), t3 (the same), t4 (failed)
    assert value(found, latency, **run, status="success") == 3
    assert value(found, latency, **run, status="suspended") == 2
    assert value(found, latency, **run, status="failed") == 1
    tokens = "runyard_model_tokens_total"
    assert value(found, tokens, **run, model=label, direction="input") >= 16
    assert value(found, tokens, **run, model=label, direction="output") >= 5
    assert value(found, "runyard_model_time_to_first_token_seconds_count", **run, model=label) >= 9
    assert value(found, "runyard_runs_active", **run) == 0
    assert value(found, "runyard_runs_suspended", **run) == 0
    assert value(found, "runyard_streams_open", protocol="sse") == 0
    assert value(found, "runyard_event_log_write_lag_seconds_count") > 0
    chat_route = {"method": "POST", "route": "/v1/chat/{thread_id}", "status": "200"}
    assert value(found, "runyard_http_request_duration_seconds_count", **chat_route) == 4
    assert not any("t1" in str(labels) or "run_" in str(labels) for _, labels in found)


def model_label(app: FastAPI) -> str:
    (agent,) = app.state.runyard.parts.agents.loaded()
    label: str = agent.model_label
    return label


async def test_a_run_traces_its_model_calls_tools_and_sub_agent_under_the_request(
    url: str, spans: InMemorySpanExporter
) -> None:
    model = scripted_model(TURNS[:6])
    tracing = Tracing.with_processor(SimpleSpanProcessor(spans), content=True)
    async with running_app(url, agents(model), tracing=tracing) as app:
        request_id = await chat(app, "t1", "compute")
        await settled(app, "t1")
    finished = spans.get_finished_spans()
    by_name: dict[str, list[ReadableSpan]] = {}
    for span in finished:
        by_name.setdefault(span.name, []).append(span)
    (post,) = by_name["POST /v1/chat/{thread_id}"]
    (run,) = by_name["invoke_agent assistant"]
    (sub,) = [s for s in finished if s.name.startswith("invoke_agent ") and s is not run]
    (delegated,) = by_name["execute_tool delegate"]
    calculators = by_name["execute_tool calculator"]
    chats = [s for s in finished if s.name.startswith("chat ")]

    assert dict(post.attributes or {})["runyard.request_id"] == request_id
    assert parent(run) == post.context.span_id
    assert {parent(s) for s in chats} == {run.context.span_id, sub.context.span_id}
    assert len(chats) == 6
    assert parent(delegated) == run.context.span_id
    assert parent(sub) == delegated.context.span_id  # the sub-agent nests under its call
    assert sorted(parent(s) == sub.context.span_id for s in calculators) == [False, False, True]
    assert (
        len({s.context.trace_id for s in finished if s.name != "GET /v1/events/{thread_id}"}) == 1
    )

    attributes = dict(run.attributes or {})
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.agent.name"] == "assistant"
    assert attributes["agent_instance_id"] == "assistant"
    assert attributes["runyard.tenant"] == "acme"
    assert attributes["runyard.thread_id"] == "t1"
    assert str(attributes["runyard.run_id"]).startswith("run")
    last = dict(chats[-1].attributes or {})
    assert last["gen_ai.operation.name"] == "chat"
    assert last["gen_ai.usage.input_tokens"] == 11
    assert last["gen_ai.usage.output_tokens"] == 3
    assert last["gen_ai.response.finish_reasons"] == ("stop",)
    # Contents are recorded (content=True), with the secret the model echoed redacted.
    assert "[REDACTED]" in str(last["gen_ai.output.messages"])
    assert SECRET not in str([s.attributes for s in finished])
    first_call = next(s for s in calculators if parent(s) == run.context.span_id)
    call_attributes = dict(first_call.attributes or {})
    assert call_attributes["gen_ai.tool.name"] == "calculator"
    assert call_attributes["gen_ai.tool.call.arguments"] == '{"expression": "1+1"}'
    assert call_attributes["runyard.tool.outcome"] in {"success", "error"}


@pytest.mark.parametrize("content", [False, True])
async def test_prompts_and_completions_are_on_the_model_span_only_when_asked_and_redacted(
    url: str, spans: InMemorySpanExporter, content: bool
) -> None:
    model = scripted_model([text(f"noted, key {SECRET}")])

    def build(store: Store) -> list[Agent]:
        return [Agent("assistant", model, "Be brief.", memory=Memory(store))]

    tracing = Tracing.with_processor(SimpleSpanProcessor(spans), content=content)
    async with running_app(url, build, tracing=tracing) as app:
        await chat(app, "t1", f"remember {SECRET}")
        await settled(app, "t1")
    (model_call,) = [s for s in spans.get_finished_spans() if s.name.startswith("chat ")]
    attributes = dict(model_call.attributes or {})
    recorded = {k for k in attributes if k.startswith(("gen_ai.input", "gen_ai.output"))}
    recorded |= {k for k in attributes if k == "gen_ai.system_instructions"}
    assert SECRET not in str([s.attributes for s in spans.get_finished_spans()])
    if not content:
        assert recorded == set()
        return
    assert recorded == {
        "gen_ai.input.messages",
        "gen_ai.system_instructions",
        "gen_ai.output.messages",
    }
    assert json.loads(str(attributes["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "remember [REDACTED]"}]}
    ]
    assert json.loads(str(attributes["gen_ai.system_instructions"])) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert json.loads(str(attributes["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "noted, key [REDACTED]"}],
            "finish_reason": "stop",
        }
    ]


def parent(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


async def test_the_request_id_is_kept_when_valid_and_replaced_when_not(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        kept = await client.get("/healthz", headers={"X-Request-ID": "abc-123.x"})
        odd = await client.get("/healthz", headers={"X-Request-ID": "a b\x7f" + "z" * 200})
        none = await client.get("/healthz")
    assert kept.headers["x-request-id"] == "abc-123.x"
    assert len(odd.headers["x-request-id"]) == 32
    assert none.headers["x-request-id"] != odd.headers["x-request-id"]


async def test_metrics_need_the_metrics_token_when_one_is_set(url: str) -> None:
    settings = {"metrics_token": "scrape-token-1"}
    async with running_app(url, settings=settings) as app, asgi_client(app) as client:
        refused = await client.get("/metrics")
        wrong = await client.get("/metrics", headers={"Authorization": "Bearer nope"})
        allowed = await client.get("/metrics", headers={"Authorization": "Bearer scrape-token-1"})
    assert refused.status_code == wrong.status_code == 401
    assert refused.json()["error"] == {
        "code": "metrics_unauthorized",
        "message": "GET /metrics needs the header Authorization with the value Bearer and the "
        "RUNYARD_METRICS_TOKEN",
    }
    assert allowed.status_code == 200
    assert "runyard_http_request_duration_seconds" in allowed.text


async def test_routing_decisions_and_mismatches_are_counted_by_rule(
    url: str, tmp_path: Path
) -> None:
    catalog = write_catalog(tmp_path)
    scripted = models(support=[text("s1"), text("s2")], billing=[text("b1")])
    async with serving(url, catalog, scripted) as app:
        await catalog_run(app, "t1", {"message": "hi", "context": {"ui_page": "/billing/q3"}})
        await catalog_run(app, "t2", {"message": "hi", "context": {"ui_page": "/home"}})
        named = {"message": "hi", "agentId": "support", "context": {"ui_page": "/billing"}}
        await catalog_run(app, "t3", named)
        async with asgi_client(app) as client:
            found = samples((await client.get("/metrics")).text)

    def decided(agent: str, rule: str) -> float:
        return value(
            found, "runyard_routing_decisions_total", tenant="acme", agent=agent, rule=rule
        )

    def mismatched(agent: str, reason: str) -> float:
        return value(
            found, "runyard_routing_mismatch_total", tenant="acme", agent=agent, reason=reason
        )

    assert decided("billing", "billing-page") == 1
    assert decided("support", "default") == 1
    assert decided("support", "explicit") == 1
    assert mismatched("support", "no_rule") == 1  # t2: no rule matched /home
    assert mismatched("support", "explicit_differs") == 1  # t3: the rules give billing
    assert mismatched("billing", "no_rule") == mismatched("billing", "explicit_differs") == 0
    assert value(found, "runyard_registry_nodes", kind="agent") == 2
    assert value(found, "runyard_registry_nodes", kind="routing") == 1


async def test_a_catalog_reload_is_timed_by_its_outcome(url: str, tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path)
    async with serving(url, catalog, models()) as app:
        before = await catalog_body(app)
        agents = catalog / "agents.yaml"
        agents.write_text(agents.read_text().replace("Be kind.", "Be brief."))
        await next_generation(app, before["generation"])
        async with asgi_client(app) as client:
            found = samples((await client.get("/metrics")).text)
    reloads = "runyard_registry_reload_duration_seconds_count"
    assert value(found, reloads, outcome="changed") >= 1
    assert value(found, reloads, outcome="failed") == 0
