"""The ``Files`` part: streamed writes and ranged reads, owner scoping, limits that keep nothing
half, thread references, and the sweep of writes whose writer died — on every backend, with the
bytes in the database and in a directory."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_parts import assert_implements

from runyard.config import Settings
from runyard.ids import new_id, now_ms
from runyard.storage import (
    FileQuotaExceeded,
    Files,
    FileTooLarge,
    NewFile,
    StorageError,
    Store,
    ThreadOwnershipError,
    open_store,
)
from runyard.storage.files import CHUNK_BYTES
from sqlite_databases import MigratedSqlite

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(CHUNK_BYTES * 2 + 1234)


@pytest.fixture(params=["database", "directory", "s3"])
async def store(
    request: pytest.FixtureRequest,
    store_url: str,
    migrated_sqlite: MigratedSqlite,
    tmp_path: Path,
) -> AsyncIterator[Store]:
    """The backend under test, its files' bytes in the database or in a directory."""
    from postgres_databases import truncate_all

    if store_url.startswith("sqlite:///"):
        migrated_sqlite.file(Path(store_url.removeprefix("sqlite:///")))
    where = {
        "database": {},
        "directory": {"files_dir": str(tmp_path / "files")},
        "s3": {"files_s3_bucket": "runyard-test", "files_s3_endpoint": "s3"},
    }[request.param]
    if request.param == "s3":
        where["files_s3_endpoint"] = request.getfixturevalue("s3_endpoint")
    opened = await open_store(store_url, settings=Settings(**where))
    try:
        yield opened
    finally:
        await opened.close()
        if store_url.startswith("postgresql"):
            await truncate_all(store_url)


async def chunks_of(data: bytes, size: int = 100_000) -> AsyncIterator[bytes]:
    for at in range(0, len(data), size):
        yield data[at : at + size]


def alices(filename: str | None = "picture.png", tenant: str = "acme") -> NewFile:
    return NewFile(new_id("file"), tenant, "alice", filename)


async def read_all(store: Files, file_id: str, **where: object) -> bytes | None:
    owner = {"tenant_id": "acme", "resource_id": "alice", **where}
    pieces = await store.read_file_bytes(file_id, **owner)  # type: ignore[arg-type]
    return None if pieces is None else b"".join([piece async for piece in pieces])


async def test_every_backend_is_a_files_part(store: Store) -> None:
    assert_implements(store, Files)


async def test_a_file_reads_back_as_written_with_its_measures(store: Store) -> None:
    record = await store.save_file(alices(), chunks_of(PNG))
    assert (record.size, record.sha256) == (len(PNG), hashlib.sha256(PNG).hexdigest())
    assert (record.media_type, record.filename) == ("image/png", "picture.png")
    assert await store.get_file(record.id, tenant_id="acme", resource_id="alice") == record
    assert await read_all(store, record.id) == PNG
    assert await store.tenant_file_bytes("acme") == len(PNG)


async def test_pieces_never_exceed_a_chunk(store: Store) -> None:
    record = await store.save_file(alices(), chunks_of(PNG, size=len(PNG)))
    pieces = await store.read_file_bytes(record.id, tenant_id="acme", resource_id="alice")
    assert pieces is not None
    assert max([len(piece) async for piece in pieces]) <= CHUNK_BYTES


@pytest.mark.parametrize(
    ("start", "end"),
    [(0, 1), (10, CHUNK_BYTES + 10), (CHUNK_BYTES, CHUNK_BYTES * 2), (CHUNK_BYTES * 2 + 5, None)],
)
async def test_a_range_reads_those_bytes_only(store: Store, start: int, end: int | None) -> None:
    record = await store.save_file(alices(), chunks_of(PNG))
    pieces = await store.read_file_bytes(
        record.id, tenant_id="acme", resource_id="alice", start=start, end=end
    )
    assert pieces is not None
    assert b"".join([piece async for piece in pieces]) == PNG[start:end]


async def test_nobody_else_sees_reads_or_deletes_a_file(store: Store) -> None:
    record = await store.save_file(alices(), chunks_of(b"hello"))
    for tenant, user in (("other", "alice"), ("acme", "bob")):
        assert await store.get_file(record.id, tenant_id=tenant, resource_id=user) is None
        assert await read_all(store, record.id, tenant_id=tenant, resource_id=user) is None
        assert not await store.delete_file(record.id, tenant_id=tenant, resource_id=user)
        assert not await store.reference_file(record.id, "t1", tenant_id=tenant, resource_id=user)
    assert await read_all(store, record.id) == b"hello"


async def test_a_deleted_file_is_gone(store: Store) -> None:
    record = await store.save_file(alices(), chunks_of(PNG))
    assert await store.delete_file(record.id, tenant_id="acme", resource_id="alice")
    assert await store.get_file(record.id, tenant_id="acme", resource_id="alice") is None
    assert await read_all(store, record.id) is None
    assert await store.tenant_file_bytes("acme") == 0
    assert not await store.delete_file(record.id, tenant_id="acme", resource_id="alice")


async def assert_nothing_kept(store: Store, file_id: str) -> None:
    assert await store.get_file(file_id, tenant_id="acme", resource_id="alice") is None
    assert await store.tenant_file_bytes("acme") == 0
    assert await store.sweep_unfinished_files(now_ms() + 1) == 0


async def test_a_file_over_the_limit_keeps_nothing(store: Store) -> None:
    file = alices()
    with pytest.raises(FileTooLarge) as raised:
        await store.save_file(file, chunks_of(PNG), max_bytes=CHUNK_BYTES + 1)
    assert raised.value.limit == CHUNK_BYTES + 1
    await assert_nothing_kept(store, file.id)


async def test_a_write_that_fails_midway_keeps_nothing(store: Store) -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield PNG[: CHUNK_BYTES * 2]
        raise ConnectionResetError("the client went away")

    file = alices()
    with pytest.raises(ConnectionResetError):
        await store.save_file(file, broken())
    await assert_nothing_kept(store, file.id)


async def test_the_quota_counts_the_tenants_finished_files(store: Store) -> None:
    first = await store.save_file(alices(), chunks_of(b"x" * 600), quota_bytes=1000)
    bob = NewFile(new_id("file"), "acme", "bob")
    with pytest.raises(FileQuotaExceeded) as raised:
        await store.save_file(bob, chunks_of(b"y" * 401), quota_bytes=1000)
    assert (raised.value.quota, raised.value.used) == (1000, 600)
    assert await store.get_file(bob.id, tenant_id="acme", resource_id="bob") is None
    await store.save_file(bob, chunks_of(b"y" * 400), quota_bytes=1000)
    await store.save_file(alices(tenant="other"), chunks_of(b"z" * 1000), quota_bytes=1000)
    assert await store.tenant_file_bytes("acme") == 1000
    assert await read_all(store, first.id) == b"x" * 600


async def test_racing_writers_never_overfill_the_quota(store: Store) -> None:
    async def one() -> bool:
        try:
            await store.save_file(alices(), chunks_of(b"x" * 400), quota_bytes=1000)
        except FileQuotaExceeded:
            return False
        return True

    assert sum(await asyncio.gather(*(one() for _ in range(5)))) == 2
    assert await store.tenant_file_bytes("acme") == 800


async def test_deleting_a_thread_deletes_the_files_only_it_references(store: Store) -> None:
    owner = {"tenant_id": "acme", "resource_id": "alice"}
    await store.save_thread("t1", **owner)
    only, shared, loose = [await store.save_file(alices(), chunks_of(PNG)) for _ in range(3)]
    assert await store.reference_file(only.id, "t1", **owner)
    assert await store.reference_file(only.id, "t1", **owner)
    assert await store.reference_file(shared.id, "t1", **owner)
    assert await store.reference_file(shared.id, "t2", **owner)  # t2 does not exist yet
    assert await store.delete_thread("t1", **owner)
    assert await store.get_file(only.id, **owner) is None
    assert await read_all(store, shared.id) == PNG
    assert await read_all(store, loose.id) == PNG
    assert await store.tenant_file_bytes("acme") == 2 * len(PNG)


async def test_a_file_cannot_be_referenced_by_another_owners_thread(store: Store) -> None:
    await store.save_thread("bobs", tenant_id="acme", resource_id="bob")
    record = await store.save_file(alices(), chunks_of(b"hi"))
    with pytest.raises(ThreadOwnershipError):
        await store.reference_file(record.id, "bobs", tenant_id="acme", resource_id="alice")


async def test_a_write_whose_writer_died_is_swept(store: Store) -> None:
    first_piece_taken, go_on = asyncio.Event(), asyncio.Event()

    async def stalled() -> AsyncIterator[bytes]:
        yield b"x" * CHUNK_BYTES
        first_piece_taken.set()
        await go_on.wait()
        yield b"y"

    file = alices()
    writer = asyncio.create_task(store.save_file(file, stalled()))
    await first_piece_taken.wait()
    assert await store.sweep_unfinished_files(now_ms() - 60_000) == 0
    assert await store.sweep_unfinished_files(now_ms() + 1) == 1
    go_on.set()
    with pytest.raises((StorageError, OSError)):  # the directory's partial file went too
        await writer
    await assert_nothing_kept(store, file.id)


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (b"", "application/octet-stream"),
        ("héllo\nwörld".encode(), "text/plain; charset=utf-8"),
        (b' {"a": [1, 2]}\n', "application/json"),
        (b"\x00\x01\x02binary", "application/octet-stream"),
        (b"%PDF-1.7\n...", "application/pdf"),
    ],
)
async def test_the_media_type_comes_from_the_bytes(
    store: Store, data: bytes, media_type: str
) -> None:
    record = await store.save_file(alices("looks.png"), chunks_of(data, size=3))
    assert record.media_type == media_type


async def test_a_large_file_streams_in_and_out_whole(store: Store) -> None:
    """11 MiB: 44 database rows, three S3 parts (5 + 5 + 1 MiB)."""
    big = os.urandom(1024 * 1024) * 11
    record = await store.save_file(alices(), chunks_of(big, size=300_000))
    assert record.sha256 == hashlib.sha256(big).hexdigest()
    tail = await store.read_file_bytes(
        record.id, tenant_id="acme", resource_id="alice", start=len(big) - CHUNK_BYTES - 7
    )
    assert tail is not None
    assert b"".join([piece async for piece in tail]) == big[-CHUNK_BYTES - 7 :]
