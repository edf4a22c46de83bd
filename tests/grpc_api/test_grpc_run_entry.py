"""A run started over gRPC says so in the thread's status and the runs-started count:
``grpc``, or ``temporal`` when runyard's Temporal activity made the call (``x-runyard-entry``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from grpc_harness import ALICE, grpc_served

from runyard.grpc import ENTRY_METADATA
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.service import Owner
from sqlite_databases import MigratedSqlite

NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.mark.parametrize(
    ("sent", "entry"),
    [
        ((), "grpc"),
        (((ENTRY_METADATA, "temporal"),), "temporal"),
        (((ENTRY_METADATA, "x"),), "grpc"),
    ],
)
async def test_a_grpc_run_records_how_it_came_in(
    url: str, sent: tuple[tuple[str, str], ...], entry: str
) -> None:
    async with grpc_served(url) as served:
        reply = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message=NOTE), metadata=(*ALICE, *sent)
        )
        status = await served.parts.runs.status(Owner("acme", "alice"), "t1")
        metrics = served.app.state.runyard.metrics
        started = metrics.registry.get_sample_value(
            "runyard_runs_started_total",
            {"tenant": "acme", "agent": "assistant", "version": "", "entry": entry},
        )

    assert reply.status == "suspended"
    assert status.entry == entry
    assert status.to_json()["entry"] == entry
    assert started == 1
