"""Roles with real ``runyard serve`` processes (issue 11 item 5): one ``--role api`` replica and two
``--role worker`` replicas (one run at a time each) on a private PostgreSQL database and Redis.

Clients talk to the api replica only. Every tool call writes the instance id of the process that
ran it to a file, so the test sees where runs execute: on the workers, never on the api replica,
two at a time while a third waits queued. Cancel and confirm go through the api replica; a worker
killed mid-tool hands its run to the other worker. Waits are for SSE frames or for the file, bounded.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import textwrap
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from http_harness import ALICE_OWNER, free_port
from server_process import client_for, frames_until, install_tool_plugin, server

from postgres_databases import private_database, unavailable
from runyard.storage import RunRecord, open_store

pytestmark = pytest.mark.slow

PLUGIN = """\
import asyncio
import os
from pathlib import Path

from runyard.registry.tools import ToolConfiguration
from runyard.tools import tool


class Holding:
    def build(self, context, deps, exec_ctx):
        folder = Path(context.parameters["dir"])

        @tool(name="hold", description="Holds while the hold file exists.")
        async def hold(label: str) -> str:
            instance = os.environ["RUNYARD_INSTANCE_ID"]
            with (folder / "calls").open("a") as log:
                log.write(f"{instance} start {label}\\n")
            while (folder / "hold").exists():
                await asyncio.sleep(0.05)
            with (folder / "calls").open("a") as log:
                log.write(f"{instance} done {label}\\n")
            return f"{label} held"

        return ToolConfiguration.single(hold, context)


FACTORY = Holding()
"""

CATALOG = """\
kind: tool
id: hold
factory: holding
retry_safe: true
parameters: {{dir: "{dir}"}}
---
kind: agent
id: helper
model: runyard:demo
instructions: Do what is asked.
tools: [hold, save_note]
---
kind: routing
default_agent: helper
"""

WORKERS = ("worker-1", "worker-2")
READY_WITHIN = 240.0
"""Seconds a replica may take to start on a loaded, shared machine."""


@dataclass
class Deployment:
    database: str
    work: Path
    api_port: int
    workers: dict[str, tuple[int, subprocess.Popen[bytes]]]
    """Each worker's port and process, by instance id."""

    @property
    def calls(self) -> list[tuple[str, str, str]]:
        """(instance, start|done, label) for every tool call line written so far."""
        path = self.work / "calls"
        text = path.read_text() if path.exists() else ""
        return [(i, what, label) for i, what, label in (line.split() for line in text.splitlines())]

    async def started(self, label: str | None, count: int = 1, within: float = 30) -> list[str]:
        """The instances that started ``label``'s call (None: any call), once ``count`` have."""
        async with asyncio.timeout(within):
            while True:
                found = [
                    i for i, what, lab in self.calls if what == "start" and label in (None, lab)
                ]
                if len(found) >= count:
                    return found
                await asyncio.sleep(0.05)

    async def runs(self, *threads: str) -> list[RunRecord]:
        """The newest run of each thread, as the database holds it."""
        store = await open_store(self.database)
        try:
            found = []
            for thread in threads:
                key = ALICE_OWNER.thread_key(thread)
                stored = await store.read_events(key, after_id=0)
                run_id = next(e.run_id for e in reversed(stored) if e.type == "run-start")
                record = await store.get_run(run_id or "")
                assert record is not None
                found.append(record)
            return found
        finally:
            await store.close()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    redis_url = os.environ.get("RUNYARD_TEST_REDIS_URL", "")
    if not redis_url:
        unavailable("RUNYARD_TEST_REDIS_URL is not set")
    root = tmp_path_factory.mktemp("roles")
    site, work, agents = root / "site", root / "work", root / "agents"
    for folder in (site, work, agents):
        folder.mkdir()
    install_tool_plugin(site, "holding", PLUGIN)
    (agents / "helper.yaml").write_text(textwrap.dedent(CATALOG.format(dir=work)))
    env = {
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "RUNYARD_CATALOG_DIR": str(agents),
        "RUNYARD_LEASE_SECONDS": "3",
        "RUNYARD_REDIS_URL": redis_url,
        "RUNYARD_WORKER_CONCURRENCY": "1",
    }
    for database in private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_roles"):
        api_port = free_port()
        with ExitStack() as stack:
            stack.enter_context(
                server(database, api_port, RUNYARD_ROLE="api", RUNYARD_INSTANCE_ID="api-1", **env)
            )
            ports = {name: free_port() for name in WORKERS}
            workers = {
                name: (
                    port,
                    stack.enter_context(
                        server(
                            database, port, RUNYARD_ROLE="worker", RUNYARD_INSTANCE_ID=name, **env
                        )
                    ),
                )
                for name, port in ports.items()
            }
            yield Deployment(database, work, api_port, workers)


async def confirmed(client: httpx.AsyncClient, request_id: str) -> httpx.Response:
    """Confirm ``request_id``, again while the run is still suspending (409 ``run_busy``)."""
    async with asyncio.timeout(30):
        while True:
            answer = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
            if answer.status_code != 409 or answer.json()["error"]["code"] != "run_busy":
                return answer
            await asyncio.sleep(0.05)


async def test_runs_execute_on_workers_only_each_within_its_concurrency(
    deployment: Deployment,
) -> None:
    threads = ("c1", "c2", "c3")
    (deployment.work / "hold").touch()
    roles = []
    for port, _ in deployment.workers.values():
        async with client_for(port, within=READY_WITHIN) as worker:
            roles.append((await worker.get("/readyz")).json()["role"])
    async with client_for(deployment.api_port, within=READY_WITHIN) as api:
        roles.append((await api.get("/readyz")).json()["role"])
        for thread in threads:
            message = f'/tool hold {{"label": "{thread}"}}'
            assert (await api.post(f"/v1/chat/{thread}", json={"message": message})).is_success
        await deployment.started(None, count=2)
        held = await deployment.runs(*threads)
        (deployment.work / "hold").unlink()
        finishes = [(await frames_until(api, t, "run-finish"))[-1] for t in threads]
        done = await deployment.runs(*threads)

    assert roles == ["worker", "worker", "api"]
    assert sorted(r.status for r in held) == ["queued", "running", "running"]
    assert {r.lease_owner for r in held if r.status == "running"} == set(WORKERS)
    assert [f.data["payload"]["status"] for f in finishes if f.data] == ["completed"] * 3
    assert {r.lease_owner for r in done} <= set(WORKERS)
    assert {instance for instance, _, _ in deployment.calls} <= set(WORKERS)
    assert sorted(label for _, what, label in deployment.calls if what == "done") == list(threads)


async def test_cancel_and_confirm_sent_to_the_api_replica_reach_the_workers(
    deployment: Deployment,
) -> None:
    (deployment.work / "hold").touch()
    async with client_for(deployment.api_port) as api:
        await api.post("/v1/chat/x1", json={"message": '/tool hold {"label": "x1"}'})
        await deployment.started("x1")
        cancelled = await api.post("/v1/chat/x1/cancel")
        cancel_finish = (await frames_until(api, "x1", "run-finish"))[-1]
        (deployment.work / "hold").unlink()

        await api.post("/v1/chat/n1", json={"message": '/tool save_note {"text": "milk"}'})
        asked = (await frames_until(api, "n1", "confirmation-request"))[-1]
        assert asked.data is not None
        answer = await confirmed(api, asked.data["payload"]["requestId"])
        frames = await frames_until(api, "n1", "run-finish")
        (note_run,) = await deployment.runs("n1")

    assert (cancelled.status_code, cancelled.json()) == (200, {"ok": True})
    assert cancel_finish.data is not None
    assert cancel_finish.data["payload"]["status"] == "cancelled"
    assert answer.status_code == 200, answer.text
    results = [f.data["payload"] for f in frames if f.data and f.data["type"] == "tool-result"]
    assert len(results) == 1
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert (note_run.lease_owner, note_run.queued_work) in {(w, "resume") for w in WORKERS}


async def test_a_worker_killed_mid_tool_hands_its_run_to_the_other_worker(
    deployment: Deployment,
) -> None:
    (deployment.work / "hold").touch()
    async with client_for(deployment.api_port) as api:
        await api.post("/v1/chat/k1", json={"message": '/tool hold {"label": "k1"}'})
        (first,) = await deployment.started("k1")
        _, killed = deployment.workers[first]
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=20)
        (deployment.work / "hold").unlink()
        frames = await frames_until(api, "k1", "run-finish", within=60)
        (run,) = await deployment.runs("k1")

    (survivor,) = set(WORKERS) - {first}
    types = [f.data["type"] for f in frames if f.data]
    assert "run-resumed" in types
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert run.lease_owner == survivor
    k1_calls = [(i, what) for i, what, label in deployment.calls if label == "k1"]
    assert k1_calls == [(first, "start"), (survivor, "start"), (survivor, "done")]
