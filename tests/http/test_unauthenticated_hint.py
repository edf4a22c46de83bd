"""The one 401 of ``RUNYARD_AUTH=keys`` tells a person what to send and how, and survives the
secret redactor that every response body passes: a real server's body, and what ``runyard chat``
prints when it has no key (docs/security.md, "API keys")."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from http_harness import free_port
from server_process import client_for, server

pytestmark = pytest.mark.slow

HINT = (
    "this server needs an API key: send the header Authorization with the value Bearer and your "
    "key, one neither revoked nor expired (runyard keys create makes one; runyard chat sends it "
    "with --api-key KEY or RUNYARD_API_KEY)"
)


def _chat_without_a_key(url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RUNYARD_API_KEY"}
    command = [sys.executable, "-m", "runyard", "chat", "--url", url, "-m", "hello"]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


async def test_the_401_says_how_to_send_a_key_and_runyard_chat_shows_it(tmp_path: Path) -> None:
    port = free_port()
    with server(f"sqlite:///{tmp_path / 'runyard.db'}", port, RUNYARD_AUTH="keys"):
        async with client_for(port):
            pass  # ready
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url) as anonymous:
            refused = await anonymous.get("/v1/threads")
        chat = await asyncio.to_thread(_chat_without_a_key, url)

    assert refused.status_code == 401
    assert refused.json()["error"] == {"code": "unauthenticated", "message": HINT}
    assert chat.returncode == 1
    assert "[REDACTED]" not in chat.stdout
    assert " ".join(chat.stdout.split()).endswith(f"failed with HTTP 401: {HINT}"), chat.stdout
