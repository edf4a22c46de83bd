"""``runyard serve`` serves gRPC beside HTTP in one process, and drains both on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def ready(http_port: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}") as client:
        async with asyncio.timeout(60):
            while True:
                try:
                    if (await client.get("/readyz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)


def serve(tmp_path: Path, http_port: int, grpc_port: int) -> subprocess.Popen[bytes]:
    """``runyard serve`` with gRPC on ``grpc_port``, its output in ``serve.log``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_DATABASE_URL=f"sqlite:///{tmp_path / 'r.db'}",
        RUNYARD_MODEL="runyard:demo",
        RUNYARD_REDIS_URL="",
        PYTHONUNBUFFERED="1",
    )
    command = [sys.executable, "-m", "runyard", "serve", "--port", str(http_port)]
    with (tmp_path / "serve.log").open("wb") as sink:
        return subprocess.Popen(
            [*command, "--grpc-port", str(grpc_port)], env=env, stdout=sink, stderr=sink
        )


async def test_serve_runs_http_and_grpc_in_one_process_and_drains_both(tmp_path: Path) -> None:
    http_port, grpc_port = free_port(), free_port()
    log = tmp_path / "serve.log"
    process = serve(tmp_path, http_port, grpc_port)
    try:
        await ready(http_port)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest()
            )
            reply = await pb_grpc.InferenceServiceStub(channel).Invoke(
                pb.InvokeRequest(thread_id="t1", message="hello")
            )
        process.terminate()
        code = await asyncio.to_thread(process.wait, 30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(20)

    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert reply.text == 'You said: "hello"'
    assert code == 0
    assert f"gRPC       127.0.0.1:{grpc_port} (runyard.v1" in log.read_text()


async def test_a_taken_grpc_port_stops_serve_with_one_line_naming_the_setting(
    tmp_path: Path,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        grpc_port = taken.getsockname()[1]
        process = serve(tmp_path, free_port(), grpc_port)
        code = await asyncio.to_thread(process.wait, 60)

    assert code == 1
    assert (tmp_path / "serve.log").read_text().strip().splitlines() == [
        f"runyard: cannot listen for gRPC on 127.0.0.1:{grpc_port}: Address already in use; "
        "set RUNYARD_GRPC_PORT (--grpc-port) to a free port, or 0 to serve no gRPC"
    ]
