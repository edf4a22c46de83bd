"""A redis-server and a PostgreSQL cluster (``private_postgres``, shared with the faster suites)
of a test's own, on free ports, which the test may stop and start at will — never the machine's
shared servers."""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from replicas import free_port, wait_until

from postgres_databases import unavailable
from private_postgres import PrivatePostgres, private_postgres


def answers(port: int, request: bytes, expected: bytes) -> bool:
    """Whether the server on ``port`` answers ``request`` with ``expected`` (Redis' PING)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(request)
            return sock.recv(64).startswith(expected)
    except OSError:
        return False


@dataclass
class PrivateRedis:
    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.workdir)]
        log = (self.workdir / "redis.log").open("ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=log)
        log.close()
        wait_until(lambda: answers(self.port, b"PING\r\n", b"+PONG"), within=20, what="redis up")

    def stop(self) -> None:
        """SIGKILL: every connection drops at once, as when Redis crashes."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=20)

    def restart(self) -> None:
        self.stop()
        self.restarts += 1
        self.start()


@contextmanager
def private_redis(workdir: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        unavailable("redis-server is not installed")
    server = PrivateRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


__all__ = ["PrivatePostgres", "PrivateRedis", "private_postgres", "private_redis"]
