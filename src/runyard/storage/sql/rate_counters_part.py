"""Rate counters of ``SqlStore``: a row per (key, second), incremented in place."""

from __future__ import annotations

from sqlalchemy import Update, delete, func, select, update

from runyard.storage.rate_window import bucket_of, first_bucket, ms_until_free, swept_before
from runyard.storage.sql.engine import write
from runyard.storage.sql.schema import rate_counters
from runyard.storage.sql.state import SqlState
from runyard.storage.sql.upserts import insert_of

__all__ = ["RateCountersPart"]

_EARLIER = rate_counters.alias("earlier")
"""The window's other buckets, read in the increment's RETURNING (an alias, so the subquery
is not correlated with the row being written)."""


class RateCountersPart(SqlState):
    """Count first, then judge: the increment serialises racing requests of one key."""

    async def take_rate_slot(
        self, key: str, *, limit: int, window_seconds: int, now: int
    ) -> int | None:
        second, oldest = bucket_of(now), first_bucket(now, window_seconds)
        earlier = (
            select(func.coalesce(func.sum(_EARLIER.c.hits), 0))
            .where(_EARLIER.c.key == key, _EARLIER.c.second >= oldest, _EARLIER.c.second < second)
            .scalar_subquery()
        )
        insert = insert_of(self._engine.dialect.name, rate_counters)
        count = (
            insert.values(key=key, second=second, hits=1)
            .on_conflict_do_update(
                index_elements=["key", "second"], set_={"hits": rate_counters.c.hits + 1}
            )
            .returning(rate_counters.c.hits, earlier)
        )
        async with write(self._engine) as conn:
            hits, before = (await conn.execute(count)).one()
            if hits + before <= limit:
                return None
            await conn.execute(_give_back(key, second))
            window = select(rate_counters.c.second, rate_counters.c.hits).where(
                rate_counters.c.key == key, rate_counters.c.second >= oldest
            )
            buckets = [(row.second, row.hits) for row in await conn.execute(window)]
        return ms_until_free(buckets, limit=limit, window_seconds=window_seconds, now=now)

    async def return_rate_slot(self, key: str, *, taken_at: int) -> None:
        async with write(self._engine) as conn:
            await conn.execute(_give_back(key, bucket_of(taken_at)))

    async def sweep_rate_counters(self, before: int) -> int:
        stmt = delete(rate_counters).where(rate_counters.c.second < swept_before(before))
        async with write(self._engine) as conn:
            return int((await conn.execute(stmt)).rowcount)


def _give_back(key: str, second: int) -> Update:
    return (
        update(rate_counters)
        .where(
            rate_counters.c.key == key,
            rate_counters.c.second == second,
            rate_counters.c.hits > 0,
        )
        .values(hits=rate_counters.c.hits - 1)
    )
