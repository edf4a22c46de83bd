"""``StoredBinaries``: the file store as the ``BinarySource`` of tools under ``runyard serve`` —
``ExecutionContext.get_binary_stream(file_id)`` streams an uploaded file, for the user whose run
called the tool and nobody else.

The source is shared by every tool the catalog builds, so whose files it reads is taken from
the tool call in progress (its ``ToolContext``: tenant and user); a call outside a run of a
known user (a stateless sub-agent) finds nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from runyard.registry.tools import UnknownBinaryError, calling_tool_context
from runyard.storage import Files

__all__ = ["StoredBinaries"]


class StoredBinaries:
    """Files of the store by id, read in chunks as the calling run's user."""

    def __init__(self, store: Files) -> None:
        self._store = store

    async def open(self, binary_id: str) -> AsyncIterator[bytes]:
        context = calling_tool_context()
        pieces = None
        if context is not None and context.tenant_id and context.resource_id:
            pieces = await self._store.read_file_bytes(
                binary_id, tenant_id=context.tenant_id, resource_id=context.resource_id
            )
        if pieces is None:
            raise UnknownBinaryError(binary_id)
        async for piece in pieces:
            yield piece
