"""``S3FileBytes`` against an S3-compatible server: a failed write leaves no object and no
multipart upload behind; a missing object reads as ``LookupError``."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import boto3
import pytest

from runyard.storage.files.s3 import PART_BYTES, S3FileBytes

BUCKET = "runyard-s3-bytes"


@pytest.fixture
def s3(s3_endpoint: str) -> S3FileBytes:
    return S3FileBytes(BUCKET, endpoint_url=s3_endpoint, prefix="t/")


async def test_a_failed_write_leaves_no_object_nor_upload(
    s3: S3FileBytes, s3_endpoint: str
) -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield os.urandom(PART_BYTES + 1)
        raise ConnectionResetError("gone")

    with pytest.raises(ConnectionResetError):
        await s3.write_bytes("file_1", broken())
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    assert client.list_objects_v2(Bucket=BUCKET, Prefix="t/").get("KeyCount", 0) == 0
    assert client.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


async def test_a_missing_object_reads_as_lookup_error(s3: S3FileBytes) -> None:
    async def one() -> AsyncIterator[bytes]:
        yield b"x"

    await s3.write_bytes("file_2", one())
    await s3.delete_bytes(["file_2"])
    with pytest.raises(LookupError):
        async for _ in s3.read_bytes("file_2", 0, 1):
            pass
