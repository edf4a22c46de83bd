"""PostgreSQL and Redis for the benchmarks that run several replicas: a private database and a
Redis database of their own, each emptied for the benchmark and given back afterwards.

- PostgreSQL: a fresh database on the server of ``RUNYARD_BENCH_POSTGRES_URL`` (e.g.
  ``postgresql://postgres@127.0.0.1:5432/postgres``), dropped afterwards, as
  ``crash_probe.py`` does (``tests/postgres_databases.py``).
- Redis: ``RUNYARD_BENCH_REDIS_URL`` if set, else the first empty database, from the highest
  number down, of the Redis at ``redis://127.0.0.1:6379`` (so the tests' database 0 is left
  alone); flushed before and after.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from postgres_databases import private_database  # noqa: E402

__all__ = ["POSTGRES_VARIABLE", "REDIS_VARIABLE", "Shared", "redis_option", "shared_services"]

POSTGRES_VARIABLE = "RUNYARD_BENCH_POSTGRES_URL"
REDIS_VARIABLE = "RUNYARD_BENCH_REDIS_URL"
_REDIS_SERVER = "redis://127.0.0.1:6379"


@dataclass(frozen=True)
class Shared:
    """What every replica of one benchmark shares: its database and its Redis."""

    database: str
    redis: str


def redis_option() -> str:
    return os.environ.get(REDIS_VARIABLE, "")


def _free_redis() -> str:
    """The highest-numbered empty database of the local Redis (no one else's keys in it)."""
    for number in range(15, 0, -1):
        url = f"{_REDIS_SERVER}/{number}"
        with redis.Redis.from_url(url) as client:
            if client.dbsize() == 0:
                return url
    raise RuntimeError(f"no empty database on {_REDIS_SERVER}; set {REDIS_VARIABLE}")


def _flush(url: str) -> None:
    with redis.Redis.from_url(url) as client:
        client.flushdb()


@contextmanager
def shared_services(postgres: str, redis_url: str, prefix: str) -> Iterator[Shared]:
    """A private database on the PostgreSQL server ``postgres`` and a flushed Redis database
    (``redis_url``, or a free one); both given back afterwards. ``RuntimeError`` when either
    cannot be reached."""
    url = redis_url or _free_redis()
    try:
        _flush(url)
    except redis.RedisError as error:
        raise RuntimeError(f"cannot reach Redis at {url}: {error}") from error
    os.environ["RUNYARD_TEST_POSTGRES_URL"] = postgres
    databases = private_database("RUNYARD_TEST_POSTGRES_URL", prefix)
    try:
        database = next(databases)
    except pytest.skip.Exception as error:  # how the tests' helper says it cannot reach it
        raise RuntimeError(f"cannot reach PostgreSQL at {postgres}: {error}") from None
    try:
        yield Shared(database, url)
    finally:
        next(databases, None)  # drops the database
        _flush(url)
