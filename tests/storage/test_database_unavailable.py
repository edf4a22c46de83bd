"""``database_unavailable`` tells a database that is away from a write that was refused."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError

from runyard.storage import StaleLease, database_unavailable


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
        wrapped(DriverError("57P01")),  # terminating connection due to administrator command
        wrapped(DriverError("08006")),  # connection failure
        wrapped(Exception("connection is closed"), invalidated=True),
    ],
)
def test_a_lost_or_refused_connection_is_unavailable(error: Exception) -> None:
    assert database_unavailable(error)


def test_the_cause_of_a_wrapper_counts() -> None:
    outer = RuntimeError("cannot persist events")
    outer.__cause__ = ConnectionResetError("reset by peer")
    assert database_unavailable(outer)


@pytest.mark.parametrize(
    "error",
    [
        IntegrityError("INSERT", {}, DriverError("23505")),  # unique_violation
        StaleLease("run 'r' lease epoch 1 superseded by 2"),
        wrapped(DriverError("42P01")),  # undefined_table
        ValueError("bad"),
    ],
)
def test_an_answer_of_the_database_is_not(error: Exception) -> None:
    assert not database_unavailable(error)
