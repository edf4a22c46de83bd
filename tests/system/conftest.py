"""Fixtures of the fault harness: the cluster of replicas, private Redis and PostgreSQL servers,
the ledger, and the results file.

Scale: ``make test`` runs the fast scenarios at a CI size; ``make test-system`` sets
``RUNYARD_SYSTEM=1``, which runs every scenario (those marked ``system`` too) at full size and
writes the figures to ``RUNYARD_SYSTEM_RESULTS``.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from ledger import Ledger, ledger_cluster
from private_services import PrivatePostgres, PrivateRedis, private_postgres, private_redis
from replicas import Cluster
from results import Results, Scenario, title_of
from sizes import FULL

from postgres_databases import private_database, unavailable

_RESULTS = Results()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="long: run by make test-system (RUNYARD_SYSTEM=1)")
    for item in items:
        if item.get_closest_marker("system") and not FULL:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    entry = _RESULTS.scenarios.get(item.name)
    if entry is not None and report.when == "call":
        entry.seconds = round(call.duration, 1)
        if hasattr(report, "wasxfail"):
            entry.outcome, entry.reason = "pending", str(report.wasxfail).removeprefix("reason: ")
        else:
            entry.outcome = report.outcome
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("RUNYARD_SYSTEM_RESULTS")
    if target and _RESULTS.scenarios:
        _RESULTS.write(Path(target), "full" if FULL else "ci")


@pytest.fixture
def scenario(request: pytest.FixtureRequest) -> Scenario:
    """This test's entry in the results; its docstring's first line is the title."""
    return _RESULTS.scenario(request.node.name, title_of(request))


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("RUNYARD_TEST_REDIS_URL", "")
    if not url:
        unavailable("RUNYARD_TEST_REDIS_URL is not set; start Redis as .ci/run does")
    return url


@pytest.fixture(scope="session")
def shared_database() -> Iterator[str]:
    """A private database in the shared PostgreSQL server, for the whole session."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_system")


@pytest.fixture(scope="session")
def replicas(
    tmp_path_factory: pytest.TempPathFactory, shared_database: str, redis_url: str
) -> Iterator[tuple[Cluster, Ledger]]:
    """Three replicas on the shared database and Redis, shared by the scenarios that kill
    nothing; and the ledger their tool writes."""
    with ledger_cluster(tmp_path_factory.mktemp("replicas"), shared_database, redis_url) as pair:
        yield pair


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of this test's own, which the test may stop and start."""
    with private_redis(tmp_path) as server:
        yield server


@pytest.fixture
def own_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL cluster of this test's own, which the test may restart."""
    with private_postgres() as server:
        yield server
