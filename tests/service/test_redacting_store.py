"""What memory's observer and semantic recall store passes the redactor too: observations (text
and metadata) and the text kept beside an embedding hold no secret in the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from runyard.messages import AgentMessage
from runyard.redaction import REDACTED, SecretRedactor
from runyard.service import RedactingStore
from runyard.storage import (
    EmbeddingEntry,
    LedgerWrite,
    Observation,
    OpeningEvent,
    Store,
    ToolCallEntry,
    open_store,
)

SECRET = "canary-Zq8uXw3Lp0TtRv"
OWNER = {"tenant_id": "acme", "resource_id": "alice"}


def observation(n: int) -> Observation:
    return Observation(
        id=f"obs_{n}",
        thread_id="t1",
        text=f"the user pasted {SECRET} ({n})",
        created_at=n,
        metadata={"quote": f"key={SECRET}"},
    )


async def test_observations_and_embedding_texts_are_stored_redacted(tmp_path: Path) -> None:
    path = tmp_path / "runyard.db"
    inner = await open_store(f"sqlite:///{path}")
    store = RedactingStore(inner, SecretRedactor([SECRET]))
    try:
        await store.save_thread("t1", **OWNER)
        await store.append_observations("t1", [observation(1)], **OWNER)
        await store.replace_observations("t1", [observation(2)], **OWNER)
        condensed = await store.condense_observations(
            "t1", [observation(3)], replaces=["obs_2"], **OWNER
        )
        entry = EmbeddingEntry("msg_1", [0.1, 0.2, 0.3], f"answer with {SECRET}", "hash")
        await store.save_embeddings("t1", [entry], **OWNER)
        stored = await store.list_observations("t1", **OWNER)
    finally:
        await inner.close()

    assert condensed
    assert [o.text for o in stored] == [f"the user pasted {REDACTED} (3)"]
    assert stored[0].metadata == {"quote": f"key={REDACTED}"}
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = [repr(db.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables]
    assert "answer with [REDACTED]" in "".join(rows)
    assert SECRET not in "".join(rows)


async def test_every_other_call_reaches_the_inner_store_unchanged(tmp_path: Path) -> None:
    inner = await open_store(f"sqlite:///{tmp_path / 'runyard.db'}")
    store = RedactingStore(inner, SecretRedactor([SECRET]))
    try:
        await store.save_thread("t1", **OWNER)
        threads = await store.list_threads(**OWNER)
        backend = store.backend
    finally:
        await store.close()

    assert isinstance(store, Store)
    assert [t.id for t in threads] == ["t1"]
    assert backend == "sqlite"


async def test_a_runs_progress_and_settled_tool_outcomes_are_stored_redacted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runyard.db"
    inner = await open_store(f"sqlite:///{path}")
    store = RedactingStore(inner, SecretRedactor([SECRET]))
    try:
        await store.save_thread("t1", **OWNER)
        run = await store.open_run("run_1", thread_id="t1", tenant_id="acme", owner="me")
        settled = ToolCallEntry("call_1", "fetch", "settled", {"output": f"key {SECRET}"})
        started = ToolCallEntry("call_2", "fetch", "started")
        state = {"message_list": [f"the tool said {SECRET}"]}
        await store.record_progress("run_1", [settled, started], epoch=run.lease_epoch, state=state)
        # A settled call written with a batch of events (the event writer's way) too.
        late = ToolCallEntry("call_2", "fetch", "settled", {"output": f"key {SECRET}"})
        await store.append_events("t1", [], ledger=[LedgerWrite("run_1", run.lease_epoch, (late,))])
        progress = await store.load_progress("run_1")
    finally:
        await inner.close()

    assert progress.state == {"message_list": [f"the tool said {REDACTED}"]}
    assert progress.calls["call_1"].outcome == {"output": f"key {REDACTED}"}
    assert progress.calls["call_2"].outcome == {"output": f"key {REDACTED}"}
    with sqlite3.connect(path) as db:
        rows = repr(db.execute("SELECT * FROM tool_ledger").fetchall())
        rows += repr(db.execute("SELECT * FROM checkpoints").fetchall())
    assert SECRET not in rows


async def test_a_progress_checkpoint_written_with_events_is_stored_redacted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runyard.db"
    inner = await open_store(f"sqlite:///{path}")
    store = RedactingStore(inner, SecretRedactor([SECRET]))
    try:
        run = await store.open_run("run_1", thread_id="t1", tenant_id="acme", owner="me")
        started = ToolCallEntry("call_1", "fetch", "started")
        state = {"message_list": [f"the model said {SECRET}"]}
        write = LedgerWrite("run_1", run.lease_epoch, (started,), state)
        await store.append_events("t1", [], ledger=[write])
        progress = await store.load_progress("run_1")
    finally:
        await inner.close()

    assert progress.state == {"message_list": [f"the model said {REDACTED}"]}
    assert list(progress.calls) == ["call_1"]
    with sqlite3.connect(path) as db:
        rows = repr(db.execute("SELECT * FROM checkpoints").fetchall())
    assert SECRET not in rows


async def test_a_runs_start_stores_its_message_metadata_and_opening_redacted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runyard.db"
    inner = await open_store(f"sqlite:///{path}")
    store = RedactingStore(inner, SecretRedactor([SECRET]))
    try:
        started = await store.start_run(
            "run_1",
            [AgentMessage.user(f"my key is {SECRET}")],
            thread_id="t1",
            owner="me",
            metadata={"note": f"key={SECRET}"},
            opening=[OpeningEvent("run-start", {"payload": {"note": SECRET}})],
            **OWNER,
        )
        (message,) = await store.get_messages("t1", **OWNER)
    finally:
        await inner.close()

    assert started.thread.metadata == {"note": f"key={REDACTED}"}
    assert [e.data for e in started.opening] == [{"payload": {"note": REDACTED}}]
    assert isinstance(message, AgentMessage)
    assert message.text == f"my key is {REDACTED}"
    with sqlite3.connect(path) as db:
        rows = repr(db.execute("SELECT * FROM messages").fetchall())
        rows += repr(db.execute("SELECT * FROM threads").fetchall())
        rows += repr(db.execute("SELECT * FROM events").fetchall())
    assert SECRET not in rows
