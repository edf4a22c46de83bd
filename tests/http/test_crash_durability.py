"""SIGKILL mid-stream loses no event a client saw and reuses no id (DESIGN.md §8, durable before
visible): real ``runyard serve`` processes, killed and restarted on one SQLite file or one
PostgreSQL database, and a client that records every event it receives and resumes each time
with ``Last-Event-ID``. Each killed run is carried on by the restarted server (``run-resumed``)
and completes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from crash_scenario import kill_and_restart
from http_harness import free_port

from postgres_databases import private_database

pytestmark = pytest.mark.slow

# Events of the run the client sees before each kill: right after run-start, early, and deep
# into the text.
KILL_AFTER = (1, 4, 25)
SERVER_ENV = {"RUNYARD_LEASE_SECONDS": "2"}


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runyard.db'}"
    else:
        yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_crash")


async def test_a_client_resuming_after_a_kill_misses_nothing_and_sees_no_id_twice(
    database_url: str,
) -> None:
    report = await kill_and_restart(database_url, free_port(), "t1", KILL_AFTER, **SERVER_ENV)

    # What was seen live before each kill and what replay sent after it join with no gap.
    assert report.ids() == list(range(1, len(report.received) + 1))
    # Every event the client saw is in the log under the id it saw.
    assert report.lost() == []
    assert report.reused() == []
    for kill in report.kills:
        seen, stored = report.run_events(kill.run_id)
        assert kill.finish_id > kill.seen  # above every id any client had seen
        assert seen == stored  # the client saw the rest of the run, its run-finish included
        assert seen[-1] == (kill.finish_id, stored[-1][1])
        assert stored[-1][1]["type"] == "run-finish"
        # The restarted server carried the run on from its message (it had made no step yet).
        assert stored[-1][1]["payload"]["status"] == "completed"
        assert "run-resumed" in [d["type"] for _, d in stored]
    seen, stored = report.run_events(report.final_run)
    assert seen == stored
    assert [d["type"] for _, d in seen][0 :: len(seen) - 1] == ["run-start", "run-finish"]
    assert seen[-1][1]["payload"]["status"] == "completed"
