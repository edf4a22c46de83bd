"""A Redis server of the test's own, which the test stops and starts again (Redis outages).

Never the shared Redis the other suites use: ``redis-server`` runs on a free loopback port with
no persistence, as a child process the test owns. Without ``redis-server`` the tests skip,
unless ``RUNYARD_TEST_REQUIRE_SERVICES=1``. Starting waits until it answers PING; stopping
waits until the process is gone — never a fixed sleep.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from postgres_databases import unavailable

__all__ = ["PrivateRedis", "private_redis"]

_READY_SECONDS = 20


class PrivateRedis:
    """``redis-server`` on ``port``; ``start``/``stop`` as often as the test likes."""

    def __init__(self, executable: str, port: int) -> None:
        self.executable = executable
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the server and return once it answers PING."""
        assert not self.running, "already running"
        command = [self.executable, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + _READY_SECONDS
        try:
            while True:
                try:
                    client.ping()
                    return
                except (redis.RedisError, OSError):
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        raise AssertionError(
                            f"redis-server on port {self.port} did not start"
                        ) from None
                    time.sleep(0.02)
        finally:
            client.close()

    def stop(self, *, kill: bool = True) -> None:
        """Stop the server (SIGKILL by default: a crash, every connection cut at once) and
        return once the process has exited."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.process.wait(timeout=20)
        self.process = None


@contextmanager
def private_redis(*, started: bool = True) -> Iterator[PrivateRedis]:
    """A ``PrivateRedis`` on a free port (running unless ``started=False``), stopped at the end."""
    executable = shutil.which("redis-server")
    if executable is None:
        unavailable("redis-server is not installed; the Redis outage tests need one of their own")
        raise AssertionError  # unreachable: unavailable skips or fails
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = PrivateRedis(executable, port)
    try:
        if started:
            server.start()
        yield server
    finally:
        server.stop()
