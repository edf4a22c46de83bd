"""Secrets never leave a real ``runyard serve``: its stdout and stderr (the start-up report,
uvicorn's access and error logs, runyard's warnings), every response and the SQLite file hold no
canary secret after a session that sends them in headers, query strings, messages and tool
arguments, and fails on purpose along the way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from http_harness import ALICE, free_port
from server_process import client_for, frames_until, stop

pytestmark = pytest.mark.slow

PROVIDER_KEY = "sk-canaryPROVIDERkey0123456789abcd"
API_KEY = "ryk_CanaryKeyId0" + "CanaryCanaryCanaryCanaryCanaryCanaryCanary1"
ADMIN_TOKEN = "CANARYadminToken42"
PATTERN_SECRET = "acme-canary-314159"
ENV_PASSWORD = "CANARYenvPassw0rd"

CANARIES = {
    "provider key": PROVIDER_KEY,
    "API key": API_KEY,
    "admin token": ADMIN_TOKEN,
    "configured pattern": PATTERN_SECRET,
    "password variable": ENV_PASSWORD,
}

TELLING = f"my key {PROVIDER_KEY} order {PATTERN_SECRET} and {ENV_PASSWORD}"
TOOL = f'/tool calculator {{"expression": "{PROVIDER_KEY} + {ENV_PASSWORD}"}}'


def _serve(db: Path, port: int, out: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_DATABASE_URL=f"sqlite:///{db}",
        RUNYARD_MODEL="runyard:demo",
        RUNYARD_AUTH="proxy",  # the clients act for ALICE through the identity headers
        RUNYARD_REDIS_URL="",
        RUNYARD_ADMIN_TOKEN=ADMIN_TOKEN,
        RUNYARD_REDACT_PATTERNS=json.dumps([r"acme-canary-\d{6}"]),
        OPENAI_API_KEY=PROVIDER_KEY,
        SERVICE_PASSWORD=ENV_PASSWORD,
        PYTHONUNBUFFERED="1",
    )
    command = [sys.executable, "-m", "runyard", "serve", "--host", "127.0.0.1"]
    with out.open("wb") as sink:
        return subprocess.Popen(
            [*command, "--port", str(port)], env=env, stdout=sink, stderr=subprocess.STDOUT
        )


async def _session(client: httpx.AsyncClient) -> list[str]:
    """Every exchange of a session that carries the secrets, as response text."""
    client.headers["Authorization"] = f"Bearer {API_KEY}"
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    seen: list[str] = []

    async def send(method: str, path: str, **kwargs: object) -> httpx.Response:
        response = await client.request(method, path, **kwargs)  # type: ignore[arg-type]
        seen.append(f"{response.status_code}\n{response.headers!r}\n{response.text}")
        return response

    await send("POST", "/v1/chat/t1", json={"message": TELLING})
    seen += [repr(f.data) for f in await frames_until(client, "t1", "run-finish")]
    await send("POST", "/v1/chat/t2", json={"message": TOOL})
    seen += [repr(f.data) for f in await frames_until(client, "t2", "run-finish")]
    for method, path, kwargs in [
        ("POST", "/v1/chat/t1", {"json": {"message": 3}}),
        ("POST", "/v1/chat/t1", {"content": PROVIDER_KEY.encode()}),
        ("POST", f"/v1/confirm/{API_KEY}", {"json": {"approved": True}}),
        ("GET", f"/v1/threads/t1/status?apiKey={API_KEY}", {}),
        ("GET", "/v1/threads/t1/messages", {}),
        ("GET", "/v1/threads/t2/messages", {}),
        ("GET", "/v1/threads", {}),
        ("GET", "/v1/catalog", {}),
        ("GET", "/v1/admin/agents/assistant/versions", {}),
        ("GET", "/v1/admin/agents/assistant/versions", {"headers": admin}),
        ("GET", f"/v1/events/t1?lastEventId={ADMIN_TOKEN}", {}),
    ]:
        await send(method, path, **kwargs)
    return seen


def _written(out: Path, directory: Path) -> tuple[str, str]:
    """What the server printed, and the bytes of its SQLite files (WAL and the instance lock
    files included) as text."""
    files = sorted(p for p in directory.glob("runyard.db*/**/*") if p.is_file())
    files += sorted(p for p in directory.glob("runyard.db*") if p.is_file())
    return out.read_text(), b"".join(p.read_bytes() for p in files).decode(errors="replace")


async def test_runyard_serve_leaks_no_canary_to_its_output_responses_or_database(
    tmp_path: Path,
) -> None:
    db, port, out = tmp_path / "runyard.db", free_port(), tmp_path / "serve.out"
    process = _serve(db, port, out)
    try:
        async with client_for(port) as client:
            seen = await _session(client)
        assert await stop(process) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=20)

    output, stored = _written(out, tmp_path)
    responses = "\n".join(seen)
    # The secrets were really there: redacted text was sent, stored and logged.
    assert "[REDACTED]" in responses
    assert "[REDACTED]" in stored
    assert "apiKey=[REDACTED]" in output
    assert ALICE["X-Runyard-User"] in stored
    leaks = {
        (name, where)
        for name, secret in CANARIES.items()
        for where, text in [("output", output), ("responses", responses), ("database", stored)]
        if secret in text
    }
    assert leaks == set()
