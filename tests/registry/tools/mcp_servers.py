"""Starting the test MCP server (``mcp_test_server.py``): as a stdio command, or over HTTP.

An HTTP server is a subprocess on a free localhost port; ``start`` returns once the port takes
connections (polled, with a generous deadline), so it can be stopped and started again on the
same URL to play a server that restarts.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path
from typing import Any

SCRIPT = str(Path(__file__).with_name("mcp_test_server.py"))
READY_TIMEOUT_S = 60.0


def stdio_parameters(variant: str = "v1", **extra: Any) -> dict[str, Any]:
    """The ``mcp`` spec parameters that start the test server over stdio."""
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": [SCRIPT, "stdio", variant],
        "connect_timeout_s": READY_TIMEOUT_S,
        **extra,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class HttpMcpServer:
    """The test server over streamable HTTP at ``url``; ``start``/``stop`` may repeat."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._process: asyncio.subprocess.Process | None = None

    def parameters(self, **extra: Any) -> dict[str, Any]:
        return {"transport": "http", "url": self.url, "connect_timeout_s": READY_TIMEOUT_S, **extra}

    async def start(self, variant: str = "v1") -> None:
        command = [sys.executable, SCRIPT, "http", variant, str(self.port)]
        self._process = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.DEVNULL
        )
        async with asyncio.timeout(READY_TIMEOUT_S):
            while not await self._listening():
                if self._process.returncode is not None:
                    raise RuntimeError(f"the test MCP server exited ({self._process.returncode})")
                await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            async with asyncio.timeout(READY_TIMEOUT_S):
                await self._process.wait()
            self._process = None

    async def _listening(self) -> bool:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            return False
        writer.close()
        await writer.wait_closed()
        return True
