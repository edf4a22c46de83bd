"""The two servers of the service race, each its own process on a loopback port.

- runyard: ``service_race_app:create`` under uvicorn (one worker), on a fresh SQLite file (its
  default embedded store; or ``memory://``, its in-memory store) and the in-process bus, from
  this interpreter; or, as one of several replicas (``Replicas``), on a shared PostgreSQL
  database and Redis (``_shared_services``), in a role (``RUNYARD_ROLE``: what ``runyard serve
  --role`` sets);
- LangGraph Server: ``langgraph dev`` (the in-memory runtime of ``langgraph-api``) serving
  ``langgraph_peer/graph.py`` from the virtual environment ``--langgraph-venv`` names, with file
  persistence off, analytics and the version check off, and enough concurrent jobs for every
  run the race keeps in flight (``langgraph dev`` runs one at a time by default).

Both log warnings only. Resident memory is the sum over the server's process tree. Started
with ``traced_frames`` above 0, a server runs with ``PYTHONTRACEMALLOC`` set to it
(``tracemalloc`` on from its first line, keeping that many frames per allocation), so
``_held_runs`` can report its Python heap: for the held runs' round only, since tracing slows
every allocation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from _held_runs import RELEASE_DIR
from _shared_services import Shared
from sse_common import free_port, stop

__all__ = [
    "Replicas",
    "Server",
    "langgraph_server",
    "replica_set",
    "runyard_server",
    "tree_cpu_seconds",
    "tree_rss_mib",
]

HERE = Path(__file__).resolve().parent
PEER = HERE / "langgraph_peer"
_READY_SECONDS = 300  # a traced server, on a busy machine, takes minutes to import


@dataclass(frozen=True)
class Server:
    """A started server: its port and the process at the root of its tree."""

    name: str
    port: int
    process: subprocess.Popen[bytes]

    def rss_mib(self) -> float:
        return tree_rss_mib(self.process.pid)

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server's process tree has used so far."""
        return tree_cpu_seconds(self.process.pid)


@dataclass(frozen=True)
class Replicas:
    """Several servers measured as one: CPU and memory summed over every replica's tree.
    ``front`` are the ones clients talk to (all of them, or the ``--role api`` ones)."""

    name: str
    servers: list[Server]
    front: list[Server]

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.front]

    def rss_mib(self) -> float:
        return sum(server.rss_mib() for server in self.servers)

    def cpu_seconds(self) -> float:
        return sum(server.cpu_seconds() for server in self.servers)

    def cpu_each(self) -> list[float]:
        """CPU seconds so far of every replica, in the order of ``servers``."""
        return [server.cpu_seconds() for server in self.servers]


@contextmanager
def runyard_server(
    folder: Path,
    release_dir: Path,
    *,
    in_memory: bool = False,
    name: str = "runyard",
    shared: Shared | None = None,
    role: str = "all",
    factory: str = "service_race_app:create",
    traced_frames: int = 0,
) -> Iterator[Server]:
    """runyard's HTTP app with the race agent (``factory``: another app of
    ``service_race_app``), on ``folder/runyard.db`` (or ``memory://``, or the ``shared``
    PostgreSQL database and Redis, in ``role``)."""
    port = free_port()
    database = "memory://" if in_memory else f"sqlite:///{folder / 'runyard.db'}"
    source = os.environ.get("PYTHONPATH", "")
    env = {
        **os.environ,
        "RUNYARD_DATABASE_URL": shared.database if shared else database,
        "RUNYARD_REDIS_URL": shared.redis if shared else "",
        "RUNYARD_ROLE": role,
        "RUNYARD_INSTANCE_ID": f"{folder.name}-{port}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), source) if p),
        RELEASE_DIR: str(release_dir),
        **_tracing(traced_frames),
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", factory,
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
        "--no-access-log", "--backlog", "4096",
    ]  # fmt: skip
    with _running(name, port, command, env, folder, "/readyz") as server:
        yield server


@contextmanager
def replica_set(
    name: str, roles: Sequence[str], apis: int, shared: Shared, scratch: Path, release_dir: Path
) -> Iterator[Replicas]:
    """runyard replicas on ``shared``, one per role of ``roles``, each in a folder of its own
    under ``scratch``; the first ``apis`` are the ones clients talk to."""
    with ExitStack() as stack:
        servers = []
        for n, role in enumerate(roles):
            folder = scratch / f"{role}-{n}"
            folder.mkdir()
            start = runyard_server(folder, release_dir, shared=shared, role=role, name=role)
            servers.append(stack.enter_context(start))
        yield Replicas(name, servers, servers[:apis])


@contextmanager
def langgraph_server(
    venv: Path, folder: Path, release_dir: Path, jobs: int, *, traced_frames: int = 0
) -> Iterator[Server]:
    """``langgraph dev`` serving the peer graph, run from ``folder`` (its scratch files go there)."""
    port = free_port()
    config = json.loads((PEER / "langgraph.json").read_text())
    # langgraph dev resolves these against its working directory: make them absolute.
    config["dependencies"] = [str((PEER / d).resolve()) for d in config["dependencies"]]
    config["graphs"] = {k: str(PEER / v.removeprefix("./")) for k, v in config["graphs"].items()}
    (folder / "langgraph.json").write_text(json.dumps(config))
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
        "LOG_LEVEL": "WARNING",
        RELEASE_DIR: str(release_dir),
        **_tracing(traced_frames),
    }
    command = [
        str(venv / "bin" / "langgraph"), "dev", "--no-browser", "--no-reload",
        "--host", "127.0.0.1", "--port", str(port), "--n-jobs-per-worker", str(jobs),
        "--server-log-level", "warning", "--config", str(folder / "langgraph.json"),
    ]  # fmt: skip
    with _running("LangGraph Server", port, command, env, folder, "/ok") as server:
        yield server


def _tracing(frames: int) -> dict[str, str]:
    return {"PYTHONTRACEMALLOC": str(frames)} if frames > 0 else {}


@contextmanager
def _running(
    name: str, port: int, command: list[str], env: dict[str, str], folder: Path, ready: str
) -> Iterator[Server]:
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(command, env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_ready(name, process, f"http://127.0.0.1:{port}{ready}", folder)
        yield Server(name, port, process)
    finally:
        stop(process)
        log.close()


def _wait_ready(name: str, process: subprocess.Popen[bytes], url: str, folder: Path) -> None:
    deadline = time.monotonic() + _READY_SECONDS
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)  # polling a process we do not control
    tail = (folder / "server.log").read_text(errors="replace")[-2000:]
    raise RuntimeError(f"{name} did not become ready (exit code {process.poll()}):\n{tail}")


def tree_rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, in MiB (0 for a process gone)."""
    total_kib = 0
    for member in _tree(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        total_kib += next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
    return total_kib / 1024


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its descendants (all their threads)."""
    ticks = 0
    for member in _tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(child) for child in task.read_text().split()]
            except OSError:
                continue
    return found
