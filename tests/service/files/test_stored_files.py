"""``StoredFiles``: one caller's files, read whole for a model call, referenced by the caller's
threads (by the id the client chose); ``StoredBinaries`` outside a tool call finds nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from runyard.ids import now_ms
from runyard.registry.tools import UnknownBinaryError
from runyard.service import Owner
from runyard.service.files import (
    ABANDONED_AFTER_MS,
    StoredBinaries,
    StoredFiles,
    sweep_abandoned_uploads,
)
from runyard.storage import FileTooLarge, StorageError
from runyard.storage.inmemory import InMemoryStore


async def pieces(*chunks: bytes) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def test_a_file_reads_back_whole_with_its_media_type_for_its_owner_only() -> None:
    store = InMemoryStore()
    alice, bob = StoredFiles(store, "acme", "alice"), StoredFiles(store, "acme", "bob")
    record = await alice.upload(pieces(b"%PDF-1.7 ", b"body"), filename="a.pdf")

    assert await alice.read_file(record.id) == ("application/pdf", b"%PDF-1.7 body")
    with pytest.raises(LookupError):
        await bob.read_file(record.id)
    with pytest.raises(LookupError):
        await bob.reference(record.id, "t1")


async def test_a_reference_names_the_callers_thread_so_its_deletion_takes_the_file() -> None:
    store = InMemoryStore()
    files = StoredFiles(store, "acme", "alice")
    record = await files.upload(pieces(b"hello"), filename=None)
    await files.reference(record.id, "t1")
    key = Owner("acme", "alice").thread_key("t1")
    await store.save_thread(key, tenant_id="acme", resource_id="alice")

    assert await store.delete_thread(key, tenant_id="acme", resource_id="alice")
    assert await files.meta(record.id) is None


async def test_the_size_limit_applies_to_uploads() -> None:
    files = StoredFiles(InMemoryStore(), "acme", "alice", max_bytes=3)
    with pytest.raises(FileTooLarge):
        await files.upload(pieces(b"abcd"), filename="x")


async def test_stored_binaries_find_nothing_outside_a_tool_call() -> None:
    store = InMemoryStore()
    record = await StoredFiles(store, "acme", "alice").upload(pieces(b"x"), filename=None)
    with pytest.raises(UnknownBinaryError):
        async for _ in StoredBinaries(store).open(record.id):
            pass


async def test_the_sweep_deletes_uploads_abandoned_for_an_hour_only() -> None:
    store = InMemoryStore()
    started, go_on = asyncio.Event(), asyncio.Event()

    async def stalled() -> AsyncIterator[bytes]:
        yield b"x"
        started.set()
        await go_on.wait()

    writer = asyncio.create_task(
        StoredFiles(store, "acme", "alice").upload(stalled(), filename=None)
    )
    await started.wait()
    assert await sweep_abandoned_uploads(store, now_ms()) == 0
    assert await sweep_abandoned_uploads(store, now_ms() + ABANDONED_AFTER_MS + 1) == 1
    go_on.set()
    with pytest.raises(StorageError):
        await writer
