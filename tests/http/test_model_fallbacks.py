"""A catalog agent with ``fallback_models``: its rate-limited model hands the call to the next
one, and the switch shows as a ``status`` event, on the model span, in ``/metrics`` and in the
run's usage, which names the model that answered."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from catalog_harness import run
from http_harness import asgi_client, running_app, settled
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families
from pydantic_ai import messages as pai
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.models import model_label
from runyard.observability import Tracing
from runyard.testing import scripted_model, text
from sqlite_databases import MigratedSqlite

PRIMARY = "openai:gpt-4o-mini"
BACKUP = "anthropic:claude-sonnet-4-5"

AGENT = f"""\
kind: agent
id: support
model: {PRIMARY}
fallback_models: [{BACKUP}]
instructions: Be kind.
---
kind: routing
default_agent: support
"""


def rate_limited() -> FunctionModel:
    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise ModelHTTPError(429, "gpt-4o-mini", {"message": "Rate limit reached"})
        yield ""  # a generator all the same

    return FunctionModel(stream_function=stream, model_name="gpt-4o-mini")


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    yield exporter
    exporter.shutdown()


async def test_a_rate_limited_catalog_model_falls_back_and_every_surface_says_so(
    url: str, tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(AGENT)
    primary, backup = rate_limited(), scripted_model([text("Answered by the backup.")])
    tracing = Tracing.with_processor(SimpleSpanProcessor(spans))
    chosen = {PRIMARY: primary, BACKUP: backup}
    settings = {"catalog_dir": str(catalog), "instance_id": "fallbacks"}
    async with running_app(
        url, settings=settings, model_for=chosen.__getitem__, tracing=tracing
    ) as app:
        (agent,) = app.state.runyard.parts.agents.loaded()
        events = await run(app, "t1", {"message": "hello"})
        await settled(app, "t1")
        async with asgi_client(app) as client:
            metrics = (await client.get("/metrics")).text

    primary_label, answered = agent.model_label, model_label(agent.fallback_models[0])
    statuses = [e["payload"]["message"] for e in events if e["type"] == "status"]
    assert statuses == [f"{primary_label} failed (rate_limit); {answered} is answering"]
    texts = "".join(e["payload"]["text"] for e in events if e["type"] == "text-delta")
    assert texts == "Answered by the backup."
    finish = events[-1]["payload"]
    assert finish["status"] == "completed"
    assert finish["usage"]["models"] == [answered]

    (chat,) = [s for s in spans.get_finished_spans() if s.name.startswith("chat ")]
    attributes = dict(chat.attributes or {})
    assert attributes["runyard.model.answered"] == answered
    assert attributes["runyard.model.fallbacks"] == (primary_label,)
    (event,) = chat.events
    assert event.name == "runyard.model.fallback"
    assert dict(event.attributes or {})["error.type"] == "rate_limit"

    found = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(metrics)
        for s in family.samples
    }
    switch = {
        "tenant": "acme",
        "agent": "support",
        "model": primary_label,
        "fallback": answered,
        "reason": "rate_limit",
    }
    counted = [
        value
        for (name, labels), value in found.items()
        if name == "runyard_model_fallbacks_total" and switch.items() <= dict(labels).items()
    ]
    assert counted == [1.0]
    tokens = [
        dict(labels)["model"]
        for (name, labels), _ in found.items()
        if name == "runyard_model_tokens_total"
    ]
    assert set(tokens) == {answered}
