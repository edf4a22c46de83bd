"""SQLite's direct statement path (``sqlite_statements``, ``sqlite_pool``): what the parts ask of
SQLAlchemy's ``CursorResult`` answers the same, errors keep SQLAlchemy's classes, a failed
transaction leaves nothing behind, and a pool that stays lent out is an overload."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    Table,
    Text,
    bindparam,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import (
    IntegrityError,
    InvalidRequestError,
    MultipleResultsFound,
    NoResultFound,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage import DatabaseUnavailable
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.engine import create_engine, dispose, read, schema_write, write
from runyard.storage.sql.schema import json_type
from runyard.storage.sql.sqlite_pool import SqlitePool

_meta = MetaData()
notes = Table(
    "notes",
    _meta,
    Column("id", Integer, primary_key=True),
    Column("body", Text, nullable=False),
    Column("data", json_type()),
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(make_url(f"sqlite+aiosqlite:///{tmp_path / 'direct.db'}"))
    async with schema_write(engine) as conn:
        await conn.run_sync(_meta.create_all)
    yield engine
    await dispose(engine)


async def _add(engine: AsyncEngine, *rows: dict[str, object]) -> None:
    async with write(engine) as conn:
        await conn.execute(insert(notes), list(rows))


async def test_rows_come_back_typed_and_named_as_sqlalchemy_names_them(
    engine: AsyncEngine,
) -> None:
    await _add(
        engine,
        {"id": 1, "body": "a", "data": {"k": [1, "\x00"]}},
        {"id": 2, "body": "b", "data": None},
    )
    async with read(engine) as conn:
        rows = (await conn.execute(select(notes).order_by(notes.c.id))).all()
        biggest = (await conn.execute(select(func.max(notes.c.id)))).scalar_one()
        bodies = (await conn.execute(select(notes.c.body).order_by(notes.c.body))).scalars()
        raw = (await conn.execute(text("SELECT id, body FROM notes WHERE id = 2"))).one()
    assert [(r.id, r.body, r.data) for r in rows] == [(1, "a", {"k": [1, "\x00"]}), (2, "b", None)]
    assert biggest == 2
    assert list(bodies) == ["a", "b"]
    assert (raw.id, raw.body) == (2, "b")


async def test_an_in_list_is_expanded_to_its_values_also_when_its_length_was_seen(
    engine: AsyncEngine,
) -> None:
    await _add(engine, *({"id": i, "body": str(i)} for i in range(1, 6)))
    async with read(engine) as conn:
        for wanted in ([2, 4], [1, 3, 5], [9], [1, 5], [3, 4, 2], []):  # lengths seen again too
            stmt = select(notes.c.id).where(notes.c.id.in_(wanted)).order_by(notes.c.id)
            found = list(await conn.scalars(stmt))
            assert found == sorted(i for i in wanted if i <= 5)


_BY_BODY = prepared(
    select(notes.c.id, notes.c.data)
    .where(notes.c.body == bindparam("body"), notes.c.id.in_([1, 2, 3]))
    .order_by(notes.c.id)
)
_RENAME = prepared(update(notes).where(notes.c.id == bindparam("which")).values(body="renamed"))
_ADD = prepared(insert(notes))


async def test_a_prepared_statement_runs_with_each_executions_values(engine: AsyncEngine) -> None:
    async with write(engine) as conn:
        await conn.execute(_ADD, [{"id": i, "body": "x", "data": {"n": i}} for i in (1, 2, 4)])
        await conn.execute(_ADD, {"id": 3, "body": "y"})  # other keys: a shape of its own
        renamed = await conn.execute(_RENAME, {"which": 2})
    async with read(engine) as conn:
        xs = (await conn.execute(_BY_BODY, {"body": "x"})).all()
        ys = (await conn.execute(_BY_BODY, {"body": "y"})).all()
        renamed_now = (await conn.execute(_BY_BODY, {"body": "renamed"})).all()
        # The same statement elsewhere (not prepared) reads the same.
        plain = (await conn.execute(select(notes.c.id).where(notes.c.body == "x"))).scalars()
    assert renamed.rowcount == 1
    assert [(r.id, r.data) for r in xs] == [(1, {"n": 1})]  # 4 is outside the constant IN list
    assert [(r.id, r.data) for r in ys] == [(3, None)]
    assert [r.id for r in renamed_now] == [2]
    assert list(plain) == [1, 4]


async def test_a_prepared_statement_without_a_value_it_needs_is_refused(
    engine: AsyncEngine,
) -> None:
    async with read(engine) as conn:
        with pytest.raises(InvalidRequestError, match="'body'"):
            await conn.execute(_BY_BODY, {"bdy": "x"})


async def test_one_and_scalar_answers_as_sqlalchemy_does(engine: AsyncEngine) -> None:
    await _add(engine, {"id": 1, "body": "x"}, {"id": 2, "body": "x"})
    async with read(engine) as conn:
        both = select(notes.c.id).where(notes.c.body == "x")
        none = select(notes.c.id).where(notes.c.body == "y")
        with pytest.raises(MultipleResultsFound):
            (await conn.execute(both)).one_or_none()
        with pytest.raises(NoResultFound):
            (await conn.execute(none)).one()
        assert (await conn.execute(none)).scalar_one_or_none() is None
        assert await conn.scalar(none) is None


async def test_rowcount_counts_the_rows_an_update_changed(engine: AsyncEngine) -> None:
    await _add(engine, *({"id": i, "body": "old"} for i in range(1, 4)))
    async with write(engine) as conn:
        changed = await conn.execute(update(notes).where(notes.c.id > 1).values(body="new"))
    assert changed.rowcount == 2


async def test_a_refused_write_is_sqlalchemys_integrity_error_and_leaves_nothing(
    engine: AsyncEngine,
) -> None:
    await _add(engine, {"id": 1, "body": "kept"})

    async def insert_two() -> None:
        async with write(engine) as conn:
            await conn.execute(insert(notes), {"id": 2, "body": "rolled back"})
            await conn.execute(insert(notes), {"id": 1, "body": "a duplicate"})

    with pytest.raises(IntegrityError):
        await insert_two()
    async with read(engine) as conn:
        assert list(await conn.scalars(select(notes.c.body))) == ["kept"]
    await _add(engine, {"id": 2, "body": "after"})  # the connection went back usable


async def test_a_pool_that_stays_lent_out_is_unavailable_then_serves_again(
    tmp_path: Path, engine: AsyncEngine
) -> None:
    path = str(tmp_path / "direct.db")
    pool = SqlitePool(path, engine.dialect, busy_seconds=1, size=1, timeout=0.05)
    try:
        async with pool.transaction("DEFERRED"):
            with pytest.raises(DatabaseUnavailable, match="every pooled connection stayed busy"):
                async with pool.transaction("DEFERRED"):
                    pass
        async with pool.transaction("DEFERRED") as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar() == 1
    finally:
        pool.close()
