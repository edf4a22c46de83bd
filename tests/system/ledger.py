"""The catalog every replica serves and the ledger its tool keeps.

``install_ledger`` makes the ``ledger`` factory (``ledger_plugin.py``) discoverable as an
installed ``runyard.tools`` entry point and writes a catalog with two instances of it: ``tally``
runs at once, ``guarded_tally`` waits for a confirmation. The agent (``worker``, and
``graph_worker``: the same on LangChain's ``create_agent``) runs on ``runyard:demo``, so a message ``/tool tally {"hold_ms": 500}`` makes it call the tool, deterministically.
``Ledger`` reads back how often each call started and ended. ``ledger_cluster`` is what every
scenario runs on: replicas serving that catalog, and their ledger.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from replicas import HERE, Cluster, cluster

CATALOG = """\
kind: tool
id: tally
factory: ledger
parameters: {{path: "{path}"}}
---
kind: tool
id: guarded_tally
factory: ledger
parameters: {{path: "{path}", approval: true}}
---
kind: agent
id: worker
model: runyard:demo
instructions: Run the tally when asked.
tools: [tally, guarded_tally]
---
kind: agent
id: graph_worker
runtime: langchain
model: runyard:demo
instructions: Run the tally when asked.
tools: [tally, guarded_tally]
---
kind: routing
default_agent: worker
"""


def install_ledger(workdir: Path) -> dict[str, str]:
    """Install the plugin and write the catalog under ``workdir``; the replicas' extra env."""
    site = workdir / "site-packages"
    info = site / "runyard_system_ledger-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: runyard-system-ledger\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[runyard.tools]\nledger = ledger_plugin:LedgerFactory\n"
    )
    catalog = workdir / "catalog"
    catalog.mkdir()
    ledger = workdir / "ledger.log"
    (catalog / "agents.yaml").write_text(CATALOG.format(path=ledger))
    path = os.pathsep.join(p for p in (str(site), str(HERE), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, "RUNYARD_CATALOG_DIR": str(catalog)}


@dataclass(frozen=True)
class Ledger:
    """Every call the ledger tool started and finished, read from its file."""

    path: Path

    def lines(self) -> list[tuple[str, str, str]]:
        """(``start`` or ``done``, run id, idempotency key) of every line."""
        if not self.path.exists():
            return []
        return [_line(text) for text in self.path.read_text().splitlines()]

    def started(self, run_id: str) -> int:
        return sum(1 for kind, run, _ in self.lines() if kind == "start" and run == run_id)

    def done(self, run_id: str) -> int:
        return sum(1 for kind, run, _ in self.lines() if kind == "done" and run == run_id)

    def finished(self) -> Counter[str]:
        """How often each call (by idempotency key) ran to its end."""
        return Counter(key for kind, _, key in self.lines() if kind == "done")

    def twice(self) -> list[str]:
        """Calls that ran to their end more than once: what must never happen."""
        return [key for key, times in self.finished().items() if times > 1]


@contextmanager
def ledger_cluster(
    workdir: Path, database_url: str, redis_url: str, **env: str
) -> Iterator[tuple[Cluster, Ledger]]:
    """Three replicas on ``database_url`` and ``redis_url`` (with ``env`` besides) serving the
    ledger's catalog, installed under ``workdir``; and the ledger their tool writes."""
    replica_env = {**install_ledger(workdir), **env}
    with cluster(workdir, database_url, redis_url, replica_env) as group:
        yield group, Ledger(workdir / "ledger.log")


def _line(text: str) -> tuple[str, str, str]:
    kind, run_id, key = text.split()
    return kind, run_id, key
