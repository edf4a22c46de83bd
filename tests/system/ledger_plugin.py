"""The ledger tool factory the system tests install into every replica (entry point ``ledger``).

A ledger tool appends ``start <run id> <key>`` to the file named by its ``path`` parameter when a
call begins and ``done <run id> <key>`` when it ends (``key`` is the call's idempotency key), so
the test counts how often each call really ran, whichever process ran it. ``hold_ms`` keeps the
call in flight long enough for a test to kill its process mid-tool; the ``approval`` parameter
makes the tool wait for a person's confirmation first. One ``write`` per line on a file opened
for appending: lines from several processes never interleave.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from runyard.registry.tools import (
    BuildContext,
    ExecutionContext,
    ToolConfiguration,
    ToolDependencies,
)
from runyard.tools import ToolContext, tool


def append(path: str, line: str) -> None:
    """Append one line to the ledger, durably before the call goes on."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{line}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)


class LedgerFactory:
    """One ledger tool per catalog entry."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        path = str(exec_ctx.get_parameter("path"))
        approval = bool(exec_ctx.get_parameter("approval", default=False))

        async def ledger(ctx: ToolContext, hold_ms: int = 0) -> dict[str, Any]:
            """Record this call in the ledger, hold it for ``hold_ms``, record that it ended."""
            await asyncio.to_thread(append, path, f"start {ctx.run_id} {ctx.idempotency_key}")
            await asyncio.sleep(hold_ms / 1000)
            await asyncio.to_thread(append, path, f"done {ctx.run_id} {ctx.idempotency_key}")
            return {"key": ctx.idempotency_key}

        built = tool(name=context.name, requires_approval=approval)(ledger)
        return ToolConfiguration.single(built, context)
