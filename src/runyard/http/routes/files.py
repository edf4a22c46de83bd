"""File endpoints: upload (multipart or a raw body), download with ranges, metadata, delete.

Every file belongs to the caller who uploaded it (tenant and user, as threads do): anyone else
gets 404. Uploads stream into the store and never sit whole in memory; one that breaks a limit,
is cut off or is malformed keeps nothing (docs/files.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.requests import ClientDisconnect

from runyard.config import Settings
from runyard.http.bodies import FileBody
from runyard.http.byte_ranges import Unsatisfiable, requested_range
from runyard.http.errors import ApiError
from runyard.http.multipart_upload import (
    MalformedUpload,
    MultipartFile,
    TruncatedUpload,
    UploadTooLarge,
)
from runyard.http.openapi import error_responses
from runyard.http.routes.file_access import FileDownload, FilesDep, file_download
from runyard.http.routes.params import FileId
from runyard.http.routes.schemas import OkResponse
from runyard.service.files import StoredFiles
from runyard.storage import FileQuotaExceeded, FileRecord, FileTooLarge

__all__ = ["MULTIPART_ALLOWANCE", "UPLOAD_PATH", "router"]

UPLOAD_PATH = "/v1/files"
MULTIPART_ALLOWANCE = 64 * 1024
"""Bytes a multipart upload may carry beside its file: boundaries, part headers, small fields."""

router = APIRouter(prefix=UPLOAD_PATH, tags=["files"])


_UPLOAD_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary", "minLength": 1}},
            }
        },
        "application/octet-stream": {
            "schema": {"type": "string", "format": "binary", "minLength": 1},
        },
    },
    "description": "multipart/form-data with the file in the field `file`, or the file itself "
    "as the raw body (any Content-Type but multipart; name it with `?filename=`). The media type "
    "is sniffed from the bytes either way.",
}


@router.post(
    "",
    response_model=None,
    status_code=201,
    openapi_extra={"requestBody": _UPLOAD_BODY},
    responses={201: {"model": FileBody}, **error_responses(400, 401, 413, 422, 503)},
)
async def upload(
    request: Request,
    files: FilesDep,
    filename: Annotated[
        str | None, Query(max_length=255, description="the file's name, for a raw body")
    ] = None,
) -> dict[str, Any]:
    """Store a file; 201 with its metadata."""
    content_type = request.headers.get("content-type", "")
    limit = _file_limit(request)
    try:
        if content_type.lower().startswith("multipart/form-data"):
            form = MultipartFile(
                content_type, request.stream(), name="file", limit=limit + MULTIPART_ALLOWANCE
            )
            named = await form.start()
            record = await files.upload(_not_empty(form.chunks()), filename=named or filename)
        else:
            _refuse_declared_size(request, limit)
            record = await files.upload(_not_empty(request.stream()), filename=filename)
    except (FileTooLarge, UploadTooLarge) as exc:
        message = f"the file is larger than RUNYARD_MAX_FILE_BYTES ({limit} bytes)"
        raise ApiError(413, "file_too_large", message, "file") from exc
    except FileQuotaExceeded as exc:
        message = (
            f"the tenant's files would pass RUNYARD_TENANT_FILE_QUOTA_BYTES ({exc.quota} bytes; "
            f"{exc.used} are stored): delete some first"
        )
        raise ApiError(413, "file_quota_exceeded", message, "file") from exc
    except EmptyUpload as exc:
        raise ApiError(422, "empty_file", "the file is empty: send its bytes", "file") from exc
    except TruncatedUpload as exc:
        raise ApiError(400, "upload_truncated", str(exc), "file") from exc
    except MalformedUpload as exc:
        raise ApiError(400, "malformed_upload", str(exc), "file") from exc
    except ClientDisconnect as exc:
        raise ApiError(
            400, "upload_truncated", "the body ended before it was whole", "file"
        ) from exc
    return file_body(record)


class EmptyUpload(ValueError):
    """The upload ended without a byte."""


async def _not_empty(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``chunks``, refused at their end when there were none with a byte (a body forgotten)."""
    empty = True
    async for chunk in chunks:
        empty = empty and not chunk
        yield chunk
    if empty:
        raise EmptyUpload()


def _file_limit(request: Request) -> int:
    settings: Settings = request.app.state.runyard.settings
    return settings.max_file_bytes


def _refuse_declared_size(request: Request, limit: int) -> None:
    """A raw body that says up front it is too large is refused before a byte is read."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        message = f"the file is larger than RUNYARD_MAX_FILE_BYTES ({limit} bytes)"
        raise ApiError(413, "file_too_large", message, "file")


_BYTES: dict[str, Any] = {"schema": {"type": "string", "format": "binary"}}
_BYTES_TYPE = "the file's bytes, `Content-Type` its sniffed media type (docs/files.md)"


@router.get(
    "/{file_id}",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"*/*": _BYTES}, "description": _BYTES_TYPE},
        206: {
            "content": {"*/*": _BYTES},
            "description": "the bytes of the one range asked for (`Content-Range` says which); "
            + _BYTES_TYPE,
        },
        **error_responses(400, 401, 404, 416, 422, 503),
    },
)
async def download(
    wanted_file: Annotated[FileDownload, Depends(file_download)],
    range_header: Annotated[
        str | None,
        Header(
            alias="Range",
            description="`bytes=a-b`, `bytes=a-` or `bytes=-n`: one range (anything else: the "
            "whole file)",
        ),
    ] = None,
) -> Response:
    """The file's bytes, streamed, with its sniffed media type; one byte range → 206. With
    `RUNYARD_AUTH=keys`, `?ticket=` (`POST /v1/files/{fileId}/ticket`) may stand in for the
    API key."""
    files, file_id = wanted_file.files, wanted_file.file_id
    record = await _found(files, file_id)
    try:
        wanted = requested_range(range_header, record.size)
    except Unsatisfiable as exc:
        raise ApiError(
            416,
            "range_not_satisfiable",
            f"the file has {record.size} bytes; the range asks for none of them",
            "Range",
            headers={"Content-Range": f"bytes */{record.size}"},
        ) from exc
    start, end = (0, record.size) if wanted is None else (wanted.start, wanted.end)
    pieces = await files.open(file_id, start=start, end=end)
    if pieces is None:  # deleted since the metadata was read
        raise _not_found(file_id)
    headers = {
        "Content-Length": str(end - start),
        "Accept-Ranges": "bytes",
        "ETag": f'"{record.sha256}"',
        "Content-Disposition": _disposition(record),
        "X-Content-Type-Options": "nosniff",
    }
    if wanted is not None:
        headers["Content-Range"] = wanted.content_range
    return StreamingResponse(
        pieces,
        status_code=200 if wanted is None else 206,
        media_type=record.media_type,
        headers=headers,
    )


def _disposition(record: FileRecord) -> str:
    """Always an attachment: a browser saves the file rather than render it on our origin."""
    if record.filename is None:
        return "attachment"
    return f"attachment; filename*=UTF-8''{quote(record.filename, safe='')}"


@router.get(
    "/{file_id}/meta",
    response_model=None,
    responses={200: {"model": FileBody}, **error_responses(400, 401, 404, 422, 503)},
)
async def meta(file_id: FileId, files: FilesDep) -> dict[str, Any]:
    """The file's metadata."""
    return file_body(await _found(files, file_id))


@router.delete(
    "/{file_id}",
    response_model=OkResponse,
    responses=error_responses(400, 401, 404, 422, 503),
)
async def delete(file_id: FileId, files: FilesDep) -> OkResponse:
    """Delete the file and its bytes (a message that names it can no longer be sent to a
    model)."""
    if not await files.delete(file_id):
        raise _not_found(file_id)
    return OkResponse()


async def _found(files: StoredFiles, file_id: str) -> FileRecord:
    record = await files.meta(file_id)
    if record is None:
        raise _not_found(file_id)
    return record


def _not_found(file_id: str) -> ApiError:
    return ApiError(404, "file_not_found", f"no file {file_id!r}", "path.file_id")


def file_body(record: FileRecord) -> dict[str, Any]:
    """The JSON of a file's metadata (``FileBody``)."""
    return {
        "id": record.id,
        "filename": record.filename,
        "mediaType": record.media_type,
        "size": record.size,
        "sha256": record.sha256,
        "createdAt": record.created_at,
    }
