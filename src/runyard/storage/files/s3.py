"""``S3FileBytes``: files' bytes as objects in an S3-compatible bucket (AWS S3, MinIO), their
metadata still in the database.

One object per file, ``<prefix><file id>``. A write is a multipart upload of parts of at least
5 MiB (S3's smallest part but the last), aborted when the write fails, so a failed upload leaves no
object; a file smaller than one part is one ``PutObject``. A read is ``GetObject`` with ``Range``,
streamed in ``CHUNK_BYTES`` pieces. boto3 is synchronous: every call runs on a thread. It comes with
the ``runyard[s3]`` extra; credentials are boto3's own (``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY``, a profile, an instance role).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from typing import Any

from runyard.storage.files.file_bytes import CHUNK_BYTES, FileBytes

__all__ = ["PART_BYTES", "S3FileBytes"]

PART_BYTES = 5 * 1024 * 1024
"""The size of a multipart upload's parts (S3's minimum, but for the last): what a write holds."""


class S3FileBytes(FileBytes):
    """Bytes in ``bucket`` (created when missing) at ``endpoint_url`` (None: AWS itself)."""

    def __init__(
        self,
        bucket: str,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        prefix: str = "runyard-files/",
        client: Any = None,
    ) -> None:
        self._bucket = bucket
        self._prefix = prefix
        self._client = client or _client(endpoint_url, region)
        self._bucket_ready = False

    def _key(self, file_id: str) -> str:
        return self._prefix + file_id

    async def _ensure_bucket(self) -> None:
        if self._bucket_ready:
            return
        try:
            await asyncio.to_thread(self._client.head_bucket, Bucket=self._bucket)
        except self._client.exceptions.ClientError:
            await asyncio.to_thread(self._client.create_bucket, Bucket=self._bucket)
        self._bucket_ready = True

    async def write_bytes(self, file_id: str, chunks: AsyncIterable[bytes]) -> None:
        await self._ensure_bucket()
        key, buffer, upload = self._key(file_id), bytearray(), None
        try:
            async for chunk in chunks:
                buffer += chunk
                if len(buffer) >= PART_BYTES:
                    upload = upload or await self._start(key)
                    await upload.add(bytes(buffer))
                    buffer.clear()
            if upload is None:
                await asyncio.to_thread(
                    self._client.put_object, Bucket=self._bucket, Key=key, Body=bytes(buffer)
                )
                return
            if buffer:
                await upload.add(bytes(buffer))
            await upload.complete()
        except BaseException:
            if upload is not None:
                await upload.abort()
            raise

    async def _start(self, key: str) -> _MultipartUpload:
        created = await asyncio.to_thread(
            self._client.create_multipart_upload, Bucket=self._bucket, Key=key
        )
        return _MultipartUpload(self._client, self._bucket, key, created["UploadId"])

    async def read_bytes(self, file_id: str, start: int, end: int) -> AsyncIterator[bytes]:
        if start >= end:
            return
        client = self._client
        try:
            answer = await asyncio.to_thread(
                client.get_object,
                Bucket=self._bucket,
                Key=self._key(file_id),
                Range=f"bytes={start}-{end - 1}",
            )
        except client.exceptions.NoSuchKey as exc:
            raise LookupError(file_id) from exc
        body = answer["Body"]
        try:
            while piece := await asyncio.to_thread(body.read, CHUNK_BYTES):
                yield piece
        finally:
            body.close()

    async def delete_bytes(self, file_ids: Sequence[str]) -> None:
        if not file_ids:
            return
        await self._ensure_bucket()
        objects = [{"Key": self._key(file_id)} for file_id in file_ids]
        for at in range(0, len(objects), 1000):  # DeleteObjects takes 1000 keys at most
            await asyncio.to_thread(
                self._client.delete_objects,
                Bucket=self._bucket,
                Delete={"Objects": objects[at : at + 1000], "Quiet": True},
            )


class _MultipartUpload:
    """One object's multipart upload: its parts, then complete or abort."""

    def __init__(self, client: Any, bucket: str, key: str, upload_id: str) -> None:
        self._client = client
        self._where = {"Bucket": bucket, "Key": key, "UploadId": upload_id}
        self._parts: list[dict[str, Any]] = []

    async def add(self, data: bytes) -> None:
        number = len(self._parts) + 1
        answer = await asyncio.to_thread(
            self._client.upload_part, PartNumber=number, Body=data, **self._where
        )
        self._parts.append({"PartNumber": number, "ETag": answer["ETag"]})

    async def complete(self) -> None:
        await asyncio.to_thread(
            self._client.complete_multipart_upload,
            MultipartUpload={"Parts": self._parts},
            **self._where,
        )

    async def abort(self) -> None:
        await asyncio.to_thread(self._client.abort_multipart_upload, **self._where)


def _client(endpoint_url: str | None, region: str | None) -> Any:
    try:
        import boto3  # the runyard[s3] extra: loaded only when configured
    except ImportError as exc:
        raise ImportError(
            "files in S3-compatible storage need boto3: pip install 'runyard[s3]'"
        ) from exc
    return boto3.client("s3", endpoint_url=endpoint_url, region_name=region)
