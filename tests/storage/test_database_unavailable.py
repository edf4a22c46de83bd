"""A database that is away is told from a write that was refused: the driver's errors by
``connection_failed`` (what the SQL engine waits out and turns into ``DatabaseUnavailable``),
the store's by ``database_unavailable`` (what the service asks)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from runyard.storage import DatabaseUnavailable, StaleLease, database_unavailable
from runyard.storage.sql.engine import read
from runyard.storage.unavailable import connection_failed


class DriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def wrapped(original: Exception, *, invalidated: bool = False) -> DBAPIError:
    return DBAPIError("INSERT", {}, original, connection_invalidated=invalidated)


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connect call failed"),
        wrapped(DriverError("57P03")),  # the database system is starting up
        wrapped(DriverError("53300")),  # too many clients already
        wrapped(DriverError("57P01")),  # terminating connection due to administrator command
        wrapped(DriverError("08006")),  # connection failure
        wrapped(Exception("connection is closed"), invalidated=True),
    ],
)
def test_a_lost_or_refused_connection_failed(error: Exception) -> None:
    assert connection_failed(error)


@pytest.mark.parametrize(
    "error",
    [
        IntegrityError("INSERT", {}, DriverError("23505")),  # unique_violation
        StaleLease("run 'r' lease epoch 1 superseded by 2"),
        wrapped(DriverError("42P01")),  # undefined_table
        ValueError("bad"),
    ],
)
def test_an_answer_of_the_database_is_no_connection_failure(error: Exception) -> None:
    assert not connection_failed(error)
    assert not database_unavailable(error)


def test_a_failure_raised_from_the_stores_error_is_unavailable() -> None:
    outer = RuntimeError("cannot persist events")
    outer.__cause__ = DatabaseUnavailable("connection reset by peer")
    assert database_unavailable(outer)
    assert not database_unavailable(OSError("the disk is full"))  # only the store's word counts


async def test_a_pool_that_stays_full_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    """A pool whose connections all stay busy past its timeout (an overload) is the store's
    ``DatabaseUnavailable`` (503 over HTTP), not SQLAlchemy's ``TimeoutError`` (a 500)."""
    url = make_url(f"sqlite+aiosqlite:///{tmp_path / 'pool.db'}")
    engine = create_async_engine(url, pool_size=1, max_overflow=0, pool_timeout=0.05)
    try:
        async with read(engine):
            with pytest.raises(DatabaseUnavailable, match="every pooled connection stayed busy"):
                async with read(engine):
                    pass
        async with read(engine) as conn:  # the held connection went back: the pool serves again
            assert (await conn.execute(text("SELECT 1"))).scalar() == 1
    finally:
        await engine.dispose()
