"""``/v1/files``: uploads (multipart and raw) streamed into the store, downloads with ranges,
metadata, delete; limits and quota that keep nothing half; sniffed media types; other owners
get 404; a thread's deletion takes the files only it used; and a catalog tool reads an upload
through ``ExecutionContext.get_binary_stream`` in a real run."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from catalog_harness import run, serving
from fastapi import FastAPI
from http_harness import ALICE, asgi_client, running_app

from runyard.service.files import StoredFiles
from runyard.storage import open_store
from runyard.storage.files import CHUNK_BYTES
from runyard.testing import call, scripted_model, text
from sqlite_databases import MigratedSqlite
from tool_plugins import Install

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(CHUNK_BYTES + 5000)
LIMITS = {"max_file_bytes": 600_000, "tenant_file_quota_bytes": 1_000_000}
BOB = {"X-Runyard-Tenant": "acme", "X-Runyard-User": "bob"}
OTHER_TENANT = {"X-Runyard-Tenant": "other", "X-Runyard-User": "alice"}


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def upload(client: httpx.AsyncClient, data: bytes, name: str = "cat.png") -> httpx.Response:
    return await client.post("/v1/files", files={"file": (name, data, "text/html")})


async def stored_bytes(url: str) -> int:
    store = await open_store(url)
    try:
        return await store.tenant_file_bytes("acme")
    finally:
        await store.close()


async def test_a_multipart_upload_reads_back_whole_with_its_metadata(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        created = await upload(client, PNG)
        file_id = created.json()["id"]
        got = await client.get(f"/v1/files/{file_id}")
        meta = await client.get(f"/v1/files/{file_id}/meta")

    assert created.status_code == 201, created.text
    body = created.json()
    assert body == meta.json()
    assert body["filename"] == "cat.png"
    assert body["mediaType"] == "image/png"  # the bytes say so; the part said text/html
    assert (body["size"], body["sha256"]) == (len(PNG), hashlib.sha256(PNG).hexdigest())
    assert got.status_code == 200
    assert got.content == PNG
    assert got.headers["content-type"] == "image/png"
    assert got.headers["accept-ranges"] == "bytes"
    assert got.headers["content-disposition"] == "attachment; filename*=UTF-8''cat.png"
    assert got.headers["x-content-type-options"] == "nosniff"


async def test_a_raw_body_is_stored_with_its_name_and_sniffed_type(url: str) -> None:
    pdf = b"%PDF-1.7\n" + b"x" * 100_000  # over RUNYARD_MAX_BODY_BYTES (64,000 here)
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        created = await client.post(
            "/v1/files?filename=report.pdf", content=pdf, headers={"content-type": "image/png"}
        )
        got = await client.get(f"/v1/files/{created.json()['id']}")

    assert created.status_code == 201, created.text
    assert (created.json()["mediaType"], created.json()["filename"]) == (
        "application/pdf",
        "report.pdf",
    )
    assert got.content == pdf


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (b"GIF89a...", "image/gif"),
        (b"\xff\xd8\xff\xe0JFIF", "image/jpeg"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", "audio/wav"),
        (b"ID3\x04\x00", "audio/mpeg"),
        (b"OggS\x00\x02", "audio/ogg"),
        (b"\x00\x00\x00\x18ftypmp42", "video/mp4"),
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01B\x82\x84webm", "video/webm"),
        (b"PK\x03\x04\x14\x00", "application/zip"),
        (b'{"a": 1}', "application/json"),
        (b"<html><script>alert(1)</script></html>", "text/plain; charset=utf-8"),
        (b"\x00\x01\x02\x03", "application/octet-stream"),
    ],
)
async def test_the_media_type_is_sniffed_from_the_bytes(
    url: str, data: bytes, media_type: str
) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        created = await upload(client, data, name="innocent.png")

    assert created.json()["mediaType"] == media_type


async def test_a_range_gets_206_with_those_bytes(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        file_id = (await upload(client, PNG)).json()["id"]
        middle = await client.get(f"/v1/files/{file_id}", headers={"Range": "bytes=10-262200"})
        tail = await client.get(f"/v1/files/{file_id}", headers={"Range": "bytes=-100"})
        several = await client.get(f"/v1/files/{file_id}", headers={"Range": "bytes=0-1,5-6"})

    assert middle.status_code == 206
    assert middle.content == PNG[10:262_201]
    assert middle.headers["content-range"] == f"bytes 10-262200/{len(PNG)}"
    assert middle.headers["content-length"] == str(262_200 - 10 + 1)
    assert tail.status_code == 206
    assert tail.content == PNG[-100:]
    assert several.status_code == 200  # more than one range: the whole file, as RFC 9110 allows
    assert several.content == PNG


async def test_a_range_past_the_end_is_416(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        file_id = (await upload(client, b"0123456789")).json()["id"]
        response = await client.get(f"/v1/files/{file_id}", headers={"Range": "bytes=10-"})

    assert response.status_code == 416
    assert response.headers["content-range"] == "bytes */10"
    assert response.json()["error"]["code"] == "range_not_satisfiable"
    assert response.json()["error"]["field"] == "Range"


@pytest.mark.parametrize("raw", [False, True])
async def test_a_file_over_the_limit_is_413_naming_the_field_and_nothing_is_kept(
    url: str, raw: bool
) -> None:
    big = b"x" * 600_001
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        if raw:
            response = await client.post("/v1/files", content=big)
        else:
            response = await upload(client, big)

    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("file_too_large", "file")
    assert "RUNYARD_MAX_FILE_BYTES (600000 bytes)" in error["message"]
    assert await stored_bytes(url) == 0


async def test_the_tenants_quota_is_413_with_a_clear_message(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        first = await upload(client, b"a" * 500_000)
        over = await client.post("/v1/files", files={"file": ("b", b"b" * 500_001)}, headers=BOB)
        elsewhere = await client.post(
            "/v1/files", files={"file": ("c", b"c" * 500_001)}, headers=OTHER_TENANT
        )

    assert first.status_code == elsewhere.status_code == 201
    assert over.status_code == 413
    error = over.json()["error"]
    assert (error["code"], error["field"]) == ("file_quota_exceeded", "file")
    assert error["message"] == (
        "the tenant's files would pass RUNYARD_TENANT_FILE_QUOTA_BYTES (1000000 bytes; "
        "500000 are stored): delete some first"
    )
    assert await stored_bytes(url) == 500_000


async def test_another_tenants_or_users_file_is_404(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        file_id = (await upload(client, b"secret")).json()["id"]
        answers = [
            await client.request(method, f"/v1/files/{file_id}{suffix}", headers=who)
            for who in (BOB, OTHER_TENANT)
            for method, suffix in (("GET", ""), ("GET", "/meta"), ("DELETE", ""))
        ]
        still = await client.get(f"/v1/files/{file_id}")

    assert {a.status_code for a in answers} == {404}
    assert {a.json()["error"]["code"] for a in answers} == {"file_not_found"}
    assert still.content == b"secret"


def multipart(body: bytes, *, closed: bool = True) -> tuple[bytes, dict[str, str]]:
    boundary = "b0undary"
    form = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nvision\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode() + body
    if closed:
        form += f"\r\n--{boundary}--\r\n".encode()
    return form, {"content-type": f"multipart/form-data; boundary={boundary}"}


async def test_a_truncated_multipart_body_is_400_and_nothing_is_kept(url: str) -> None:
    whole, headers = multipart(b"hello " * 1000)
    cut, _ = multipart(b"hello " * 1000, closed=False)
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        good = await client.post("/v1/files", content=whole, headers=headers)
        truncated = await client.post("/v1/files", content=cut, headers=headers)
        no_field = await client.post(
            "/v1/files", files={"attachment": ("x", b"x")}, headers={"X-Extra": "1"}
        )

    assert good.status_code == 201, good.text
    assert (good.json()["filename"], good.json()["size"]) == ("a.txt", 6000)
    assert truncated.status_code == 400
    assert truncated.json()["error"]["code"] == "upload_truncated"
    assert truncated.json()["error"]["field"] == "file"
    assert no_field.status_code == 400
    assert no_field.json()["error"] == {
        "code": "malformed_upload",
        "message": "the form has no field 'file'",
        "field": "file",
    }
    assert await stored_bytes(url) == 6000


async def test_a_client_that_goes_away_midway_leaves_nothing(url: str) -> None:
    """A raw upload whose sender disconnects after the first 300 KB (past one stored chunk)."""
    sent: list[dict[str, Any]] = []
    messages = [
        {"type": "http.request", "body": b"x" * 300_000, "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/files",
        "raw_path": b"/v1/files",
        "query_string": b"",
        "headers": [
            (b"content-length", b"500000"),
            *((k.lower().encode(), v.encode()) for k, v in ALICE.items()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("runyard", 80),
    }
    async with running_app(url, settings=LIMITS) as app:
        await app(scope, receive, send)

    assert sent[0]["status"] == 400
    assert await stored_bytes(url) == 0


async def test_an_empty_upload_is_422_naming_the_file(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        raw = await client.post("/v1/files")
        form = await upload(client, b"")

    for response in (raw, form):
        assert response.status_code == 422
        assert response.json()["error"] == {
            "code": "empty_file",
            "message": "the file is empty: send its bytes",
            "field": "file",
        }


async def test_a_method_a_file_does_not_take_is_405_listing_those_it_does(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        response = await client.put("/v1/files/file_" + "0" * 32)

    assert response.status_code == 405
    assert response.headers["allow"] == "DELETE, GET"


async def test_a_deleted_file_is_gone(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        file_id = (await upload(client, PNG)).json()["id"]
        deleted = await client.delete(f"/v1/files/{file_id}")
        again = await client.delete(f"/v1/files/{file_id}")
        got = await client.get(f"/v1/files/{file_id}")

    assert deleted.json() == {"ok": True}
    assert again.status_code == got.status_code == 404
    assert await stored_bytes(url) == 0


async def test_a_malformed_file_id_is_422(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        response = await client.get("/v1/files/..%2Fetc%2Fpasswd")

    assert response.status_code in (404, 422)


async def chat_on(app: FastAPI, thread: str) -> None:
    await run(app, thread, {"message": "hi"})


async def test_deleting_a_thread_deletes_the_files_only_it_references(url: str) -> None:
    async with running_app(url, settings=LIMITS) as app, asgi_client(app) as client:
        only, shared, loose = [(await upload(client, PNG)).json()["id"] for _ in range(3)]
        for thread in ("t1", "t2"):
            await chat_on(app, thread)
        files = StoredFiles(app.state.runyard.parts.store, "acme", "alice")
        for file_id, thread in ((only, "t1"), (shared, "t1"), (shared, "t2")):
            await files.reference(file_id, thread)
        deleted = await client.delete("/v1/threads/t1")
        answers = {
            f: (await client.get(f"/v1/files/{f}/meta")).status_code for f in (only, shared, loose)
        }

    assert deleted.status_code == 200
    assert answers == {only: 404, shared: 200, loose: 200}
    assert await stored_bytes(url) == 2 * len(PNG)


READER_PLUGIN = '''
from runyard.registry.tools import ToolConfiguration
from runyard.tools import tool


class ReaderFactory:
    """One tool that reads an uploaded file through the execution context."""

    def build(self, context, deps, exec_ctx):
        @tool(name=context.name)
        async def read_upload(file_id: str) -> dict:
            """Read an uploaded file."""
            data = b""
            pieces = 0
            async for piece in exec_ctx.get_binary_stream(file_id):
                data += piece
                pieces += 1
            return {"size": len(data), "pieces": pieces, "head": data[:8].hex()}

        return ToolConfiguration.single(read_upload, context)
'''

READER_CATALOG = """\
kind: agent
id: front
model: openai:gpt-4o-mini
tools: [read_upload]
---
kind: routing
default_agent: front
"""


async def test_a_catalog_tool_reads_the_callers_upload_in_a_run(
    url: str, tmp_path: Path, install: Install
) -> None:
    install(
        "runyard-reader-plugin", "read_upload = runyard_reader_plugin:ReaderFactory", READER_PLUGIN
    )
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(READER_CATALOG)
    async with running_app(url, settings=LIMITS) as plain, asgi_client(plain) as client:
        mine = (await upload(client, PNG)).json()["id"]
        bobs = (await client.post("/v1/files", files={"file": ("b", b"bob")}, headers=BOB)).json()[
            "id"
        ]
    model = scripted_model(
        [call("read_upload", {"file_id": mine}), call("read_upload", {"file_id": bobs}), text("ok")]
    )
    async with serving(url, catalog, model, **LIMITS) as app:
        events = await run(app, "t1", {"message": "read them"})

    outcomes = [
        (e["type"], e["payload"]) for e in events if e["type"] in ("tool-result", "tool-error")
    ]
    assert outcomes[0][1]["result"] == {"size": len(PNG), "pieces": 2, "head": PNG[:8].hex()}
    assert outcomes[1] == (  # bob's file, asked for in alice's run
        "tool-error",
        {"toolCallId": outcomes[1][1]["toolCallId"], "error": f"no binary with id {bobs!r}"},
    )


async def test_with_a_files_directory_the_bytes_live_there(url: str, tmp_path: Path) -> None:
    directory = tmp_path / "files"
    settings = {**LIMITS, "files_dir": str(directory)}
    async with running_app(url, settings=settings) as app, asgi_client(app) as client:
        file_id = (await upload(client, PNG)).json()["id"]
        on_disk = directory / file_id[-2:] / file_id
        kept = on_disk.read_bytes()
        got = await client.get(f"/v1/files/{file_id}", headers={"Range": "bytes=5-"})
        await client.delete(f"/v1/files/{file_id}")

    assert kept == PNG
    assert got.content == PNG[5:]
    assert not on_disk.exists()
    assert list((directory / "partial").iterdir()) == []
