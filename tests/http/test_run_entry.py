"""A run started with ``POST /v1/chat`` says it came in over HTTP: on its span, in the
``runyard_runs_started_total`` count, and in the thread's ``/status`` while it is open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from runyard.observability import Tracing
from sqlite_databases import MigratedSqlite

NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    yield exporter
    exporter.shutdown()


async def test_a_chat_run_records_its_http_entry(url: str, spans: InMemorySpanExporter) -> None:
    tracing = Tracing.with_processor(SimpleSpanProcessor(spans))
    async with running_app(url, tracing=tracing) as app, asgi_client(app) as client:
        before = (await client.get("/v1/threads/t1/status")).status_code
        started = await client.post("/v1/chat/t1", json={"message": NOTE})
        assert started.status_code == 200, started.text
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("confirmation-request")
        status = (await client.get("/v1/threads/t1/status")).json()
        metrics = (await client.get("/metrics")).text
        assert frames[-1].data is not None
        request_id = frames[-1].data["payload"]["requestId"]
        await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        await settled(app, "t1")

    assert before == 404
    assert status["isSuspended"] is True
    assert status["entry"] == "http"
    started_line = next(
        line for line in metrics.splitlines() if line.startswith("runyard_runs_started_total{")
    )
    assert 'entry="http"' in started_line
    assert started_line.endswith(" 1.0")
    # The first segment and the resume after the approval: the run's entry on both.
    runs = [s for s in spans.get_finished_spans() if s.name.startswith("invoke_agent ")]
    assert [dict(r.attributes or {})["runyard.segment"] for r in runs] == ["start", "resume"]
    assert {dict(r.attributes or {})["runyard.entry"] for r in runs} == {"http"}


async def test_a_thread_without_an_open_run_has_no_entry_in_its_status(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            await stream.until("run-finish")
        await settled(app, "t1")
        status = (await client.get("/v1/threads/t1/status")).json()
    assert status["hasActiveRun"] is False
    assert "entry" not in status
