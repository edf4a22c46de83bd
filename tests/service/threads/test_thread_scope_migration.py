"""Revision 0003 moves a database made at revision 0001 to scoped thread keys, and the service
keeps working on it: the threads, their history and memory, and a run waiting for an answer.

The 0001 database is what runyard wrote before: today's service writes a database at head,
whose rows are copied into a database migrated only to 0001 with every key turned back into
the bare thread id (the global namespace 0001 used).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import OWNER, key, service
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from postgres_databases import private_database
from runyard.messages import AgentMessage
from runyard.service import Owner, Threads
from runyard.storage import EmbeddingEntry, MessageCursor, Observation, parse_database_url
from runyard.storage.migrations import upgrade_to
from runyard.storage.sql.engine import create_engine, read, schema_write, write
from runyard.storage.sql.schema import metadata

BOB = Owner("acme", "bob")
ALICE: dict[str, Any] = {"tenant_id": "acme", "resource_id": "alice"}
NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture(params=["sqlite", "postgresql"])
def target_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each backend (PostgreSQL: a fresh one, dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_migration")


_LATER_TABLES = {
    "run_snapshots",
    "agent_versions",
    "agent_activations",
    "catalog_revision",
    "rate_counters",
    "tool_ledger",
}
"""Tables of later revisions (0004, 0006, 0007, 0008): a database of revision 0001 has none; its history is then
built from its log, the way an upgraded database's is."""

_LATER_COLUMNS = {
    "seq",
    "agent_id",
    "cancel_requested_at",
    "queued_work",
    "queued_request_id",
    "queued_at",
}
"""Columns not copied: the target numbers rows itself; ``runs.agent_id`` came with 0007,
``runs.cancel_requested_at`` with 0008 and the ``runs.queued_*`` columns with 0009."""


def _engine(url: str) -> AsyncEngine:
    target = parse_database_url(url).sqlalchemy_url
    assert target is not None
    return create_engine(target)


def _bare(value: Any) -> Any:
    """``value`` with every scoped key turned back into the bare thread id of revision 0001."""
    if isinstance(value, str):
        for owner in (OWNER, BOB):
            if owner.owns_key(value):
                return owner.thread_id_of(value)
        return value
    if isinstance(value, dict):
        return {k: _bare(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bare(v) for v in value]
    return value


async def _copy_as_revision_0001(source_url: str, target_url: str) -> None:
    source, target = _engine(source_url), _engine(target_url)
    try:
        async with schema_write(target) as conn:
            await conn.run_sync(upgrade_to, "0002")  # the revision before 0003
        for table in metadata.sorted_tables:
            if table.name in _LATER_TABLES:
                continue
            columns = [c for c in table.columns if c.name not in _LATER_COLUMNS]
            async with read(source) as conn:
                rows = [r._asdict() for r in await conn.execute(select(*columns))]
            if rows:
                async with write(target) as conn:
                    await conn.execute(insert(table), [_bare(row) for row in rows])
    finally:
        await source.dispose()
        await target.dispose()


async def _written_by_the_service(url: str) -> None:
    """Alice's thread waits for an approval and has every memory tier; Bob's has finished."""
    k = key("t1")
    async with service(url) as svc:
        await svc.runs.start(OWNER, "t1", NOTE)
        await svc.runs.start(BOB, "t2", "hello")
        await svc.settle("t1")
        await svc.settle("t2", BOB)
        store = svc.store
        await store.save_plan(k, {"goal": "ship"}, **ALICE)
        await store.save_working_memory("thread notes", scope="thread", thread_id=k, **ALICE)
        await store.save_working_memory("user notes", scope="resource", **ALICE)
        await store.append_observations(k, [Observation("o1", k, "seen", 1)], **ALICE)
        await store.set_observation_cursor(k, MessageCursor(1, "m0"), **ALICE)
        await store.save_embeddings(k, [EmbeddingEntry("m1", [1.0, 0.0], "hi", "e")], **ALICE)
        await store.save_messages("sdk-thread", [AgentMessage.user("from the SDK")], **ALICE)


async def test_a_database_made_at_0001_keeps_working_after_the_scope_migration(
    target_url: str, tmp_path: Path
) -> None:
    source_url = f"sqlite:///{tmp_path / 'source.db'}"
    await _written_by_the_service(source_url)
    await _copy_as_revision_0001(source_url, target_url)

    k = key("t1")
    async with service(target_url) as svc:  # opening the store migrates to head
        threads = Threads(svc.events, svc.store)
        listed = [await threads.list_threads(owner) for owner in (OWNER, BOB)]
        history = await threads.messages(OWNER, "t1")
        waiting = await svc.runs.status(OWNER, "t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]
        bobs = await threads.messages(BOB, "t2")
        store = svc.store
        plan = await store.get_plan(k, **ALICE)
        thread_notes = await store.get_working_memory(scope="thread", thread_id=k, **ALICE)
        user_notes = await store.get_working_memory(scope="resource", **ALICE)
        observations = await store.list_observations(k, **ALICE)
        cursor = await store.get_observation_cursor(k, **ALICE)
        hits = await store.query_embeddings([1.0, 0.0], thread_id=k, **ALICE)
        sdk = await store.get_messages("sdk-thread", **ALICE)
        bare = await store.get_thread("t1", **ALICE)

    assert [[t["id"] for t in mine] for mine in listed] == [["t1"], ["t2"]]
    assert [m["content"] for m in history["messages"] if m["role"] == "user"] == [NOTE]
    assert waiting.is_suspended
    assert [e.type for e in log].count("tool-result") == 1
    assert log[-1].type == "run-finish"
    assert log[-1].payload.status == "completed"
    assert [m["content"] for m in bobs["messages"] if m["role"] == "user"] == ["hello"]
    assert plan is not None
    assert plan.data == {"goal": "ship"}
    assert (thread_notes and thread_notes.content, user_notes and user_notes.content) == (
        "thread notes",
        "user notes",
    )
    assert [o.text for o in observations] == ["seen"]
    assert cursor is not None
    assert cursor.message_id == "m0"
    assert [h.message_id for h in hits] == ["m1"]
    assert [m.model_dump()["parts"][0]["text"] for m in sdk] == ["from the SDK"]
    assert bare is None
