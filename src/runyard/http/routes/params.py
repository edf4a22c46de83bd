"""Path parameters of the ``/v1`` routes, each checked against its rule in ``runyard.ids``.

A thread or request id that breaks the rule answers 422 naming ``path.thread_id`` (or
``path.request_id``) before any route code runs, so it never reaches the store; the pattern is
in the OpenAPI document.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from runyard.ids import FILE_ID_PATTERN, REQUEST_ID_PATTERN, THREAD_ID_PATTERN

__all__ = ["FileId", "RequestId", "ThreadId"]

ThreadId = Annotated[
    str,
    Path(
        pattern=THREAD_ID_PATTERN,
        description="The thread, chosen by the client: 1-128 of A-Z a-z 0-9 . _ : @ -. "
        "Thread ids are per user: another user's thread of the same id is a different thread.",
        examples=["t1"],
    ),
]

RequestId = Annotated[
    str,
    Path(
        pattern=REQUEST_ID_PATTERN,
        description="The requestId of a confirmation-request event.",
        examples=["cr_3f2a9c0e5b7d41a8b6c2e9f0a1d4c7b3"],
    ),
]

FileId = Annotated[
    str,
    Path(
        pattern=FILE_ID_PATTERN,
        description="A stored file's id, as POST /v1/files answered it.",
        examples=["file_3f2a9c0e5b7d41a8b6c2e9f0a1d4c7b3"],
    ),
]
