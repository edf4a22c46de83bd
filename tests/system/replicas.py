"""Three (or N) real ``runyard serve`` processes on free loopback ports, sharing one database and
one Redis, each serving the ledger catalog on the offline demo model.

A ``Cluster`` starts, kills (SIGKILL) and restarts replicas and reads their memory and task
counts through ``serve_probe.py``. Every wait is for a condition (the replica answering, the
probe file changing), bounded in time; nothing sleeps for a fixed time to let something happen.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

HERE = Path(__file__).parent
IDENTITY = {"X-Runyard-Tenant": "acme", "X-Runyard-User": "alice"}
READY_WITHIN = 240.0
"""Seconds a replica may take to answer ``/readyz`` (the machine is shared and loaded)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(
    condition: Callable[[], bool], *, within: float, what: str, step: float = 0.05
) -> None:
    """Poll ``condition()`` until it is true; fail naming ``what`` after ``within``."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {within} s")
        time.sleep(step)


@dataclass(frozen=True)
class Probe:
    """What a replica reported on SIGUSR1."""

    sequence: int
    tasks: int
    rss_kb: int
    names: tuple[str, ...] = ()
    """The coroutine of each task, by name."""


@dataclass
class Replica:
    """One ``runyard serve`` process (restarted in place on the same port)."""

    index: int
    port: int
    workdir: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def probe_file(self) -> Path:
        return self.workdir / f"probe-{self.index}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.starts += 1
        log = (self.workdir / f"replica-{self.index}.{self.starts}.log").open("wb")
        command = [sys.executable, str(HERE / "serve_probe.py"), "serve"]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        environment = {
            **self.env,
            "RUNYARD_INSTANCE_ID": f"replica-{self.index}-{self.starts}",
            "RUNYARD_PROBE_FILE": str(self.probe_file),
        }
        self.process = subprocess.Popen(command, env=environment, stdout=log, stderr=log)
        log.close()

    def wait_ready(self) -> None:
        def ready() -> bool:
            if not self.alive:
                raise RuntimeError(f"replica {self.index} exited: see {self.workdir}")
            try:
                return httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(ready, within=READY_WITHIN, what=f"replica {self.index} ready", step=0.1)

    def kill(self) -> None:
        """SIGKILL: no lease released, no event flushed, as when a machine dies."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)

    def probe(self) -> Probe:
        """Ask the replica for its task count and RSS; wait for the fresh answer."""
        before = self.probe_file.read_text() if self.probe_file.exists() else ""
        assert self.process is not None
        self.process.send_signal(signal.SIGUSR1)

        def answered() -> bool:
            return self.probe_file.exists() and self.probe_file.read_text() not in ("", before)

        wait_until(answered, within=10, what=f"replica {self.index} probe")
        head, *names = self.probe_file.read_text().splitlines()
        sequence, tasks, rss = (int(v) for v in head.split())
        return Probe(sequence, tasks, rss, tuple(names))


@dataclass
class Cluster:
    """N replicas on one database and one Redis."""

    replicas: list[Replica] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [r.url for r in self.replicas]

    def other(self, index: int, shift: int = 1) -> Replica:
        """Another replica than ``index`` (the next one, cyclically, ``shift`` along)."""
        return self.replicas[(index + shift) % len(self.replicas)]

    def restart(self, index: int) -> None:
        replica = self.replicas[index]
        replica.stop()
        replica.start()
        replica.wait_ready()


@contextmanager
def cluster(
    workdir: Path, database_url: str, redis_url: str, env: dict[str, str], size: int = 3
) -> Iterator[Cluster]:
    """``size`` replicas, started together and stopped (or killed) at the end."""
    shared = {
        **os.environ,
        "RUNYARD_AUTH": "proxy",
        "RUNYARD_DATABASE_URL": database_url,
        "RUNYARD_REDIS_URL": redis_url,
        "RUNYARD_MODEL": "runyard:demo",
        **env,
    }
    group = Cluster([Replica(i, free_port(), workdir, shared) for i in range(size)])
    try:
        for replica in group.replicas:
            replica.start()
        for replica in group.replicas:
            replica.wait_ready()
        yield group
    finally:
        for replica in group.replicas:
            replica.stop()
