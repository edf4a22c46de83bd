"""Cold start: what a fresh process pays before it does its first useful thing.

Every row is a whole new Python process, timed from spawn to exit (or, for ``runyard serve``,
to its first ``/readyz`` 200): bare Python, ``import runyard``, ``import runyard.cli``,
``runyard --help``, import + build an agent + its first one-tool run (runyard and, where
installed, pydantic-ai and LangGraph), and ``runyard serve`` on the embedded default, on a new
database file (its first start: it migrates the file) and on one migrated already (a restart,
which skips alembic). Rows run interleaved, in an order that rotates each round, so the
machine's noise lands on all alike; medians and best of ``--rounds``. Wall time depends on what else the machine runs; the CPU
time the process used (user + system) depends much less on it. ``serve``'s CPU includes its
shutdown.

It times the runyard that ``PYTHONPATH`` points at, so two source trees can be compared:
``PYTHONPATH=/old/src python benchmarks/cold_start.py`` then with the new one. That tree's
modules are compiled to bytecode first, as an installed wheel's are (with
``PYTHONDONTWRITEBYTECODE`` set, every process would otherwise compile runyard's ~380 modules
again, while the peers' come compiled from site-packages).

The peers run in their own processes, so they may come from another environment:
``--langgraph-python /path/to/venv/bin/python`` times LangGraph with that interpreter (one with
``langgraph`` and ``langchain`` installed) when this one has none. ``--json PATH`` writes the
summary rows (the targets, met or not on the median wall time).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import importlib.util
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from _race_http import frames, json_call, request
from _report import Row, at_most, json_option, write_rows

# The same one-tool run for each system: the model calls add(1, 2), then answers.
_FUNCTION_MODEL = """
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

async def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
    if any(isinstance(p, pai.ToolReturnPart) for m in messages for p in m.parts):
        return pai.ModelResponse(parts=[pai.TextPart("The sum is 3.")])
    return pai.ModelResponse(parts=[pai.ToolCallPart("add", {"a": 1, "b": 2})])

async def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b
"""

_RUNYARD_FIRST_RUN = (
    "import asyncio\nfrom runyard import Agent\n"
    + _FUNCTION_MODEL
    + """
agent = Agent("bench", FunctionModel(respond), tools=[add])
result = asyncio.run(agent.generate("What is 1 + 2?"))
assert result.text == "The sum is 3.", result
"""
)

_PYDANTIC_AI_FIRST_RUN = (
    "from pydantic_ai import Agent\n"
    + _FUNCTION_MODEL
    + """
agent = Agent(FunctionModel(respond), tools=[add])
assert agent.run_sync("What is 1 + 2?").output == "The sum is 3."
"""
)

_LANGGRAPH_FIRST_RUN = """
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

@tool
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b

class Model(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

call = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "1"}])
model = Model(messages=iter([call, AIMessage("The sum is 3.")]))
graph = create_agent(model, tools=[add])
state = graph.invoke({"messages": [HumanMessage("What is 1 + 2?")]})
assert state["messages"][-1].text == "The sum is 3."
"""


def _python(*arguments: str, interpreter: str = sys.executable) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        subprocess.run([interpreter, *arguments], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    return run


def _children_cpu() -> float:
    """CPU seconds (user + system) of every child process reaped so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _serve_ready(migrated: Path | None = None) -> float:
    """Spawn ``runyard serve`` on a fresh embedded SQLite database (a copy of ``migrated``, a
    database a first start migrated already, when given); seconds until /readyz 200."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as home:
        if migrated is not None:
            shutil.copyfile(migrated, Path(home) / "runyard.db")
        env = {**os.environ, "RUNYARD_DATABASE_URL": f"sqlite:///{home}/runyard.db"}
        command = [sys.executable, "-m", "runyard", "serve", "--port", str(port)]
        start = time.perf_counter()
        server = subprocess.Popen(
            command, cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            return _ready(f"http://127.0.0.1:{port}/readyz", server, start)
        finally:
            server.terminate()
            server.wait(timeout=60)


def _serve_first_run(migrated: Path) -> float:
    """Spawn ``runyard serve`` on a copy of ``migrated``; once ``/readyz`` says 200, run one
    chat on the default agent (the demo model calls its calculator, then answers) and return
    the seconds from that POST to the run's end on the thread's event stream: what the first
    request pays for whatever start-up left for later."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as home:
        shutil.copyfile(migrated, Path(home) / "runyard.db")
        env = {**os.environ, "RUNYARD_DATABASE_URL": f"sqlite:///{home}/runyard.db"}
        command = [sys.executable, "-m", "runyard", "serve", "--port", str(port)]
        server = subprocess.Popen(
            command, cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            _ready(f"http://127.0.0.1:{port}/readyz", server, time.perf_counter())
            return asyncio.run(_first_run(port))
        finally:
            server.terminate()
            server.wait(timeout=60)


async def _first_run(port: int) -> float:
    stream = await request(port, "GET", "/v1/events/first?lastEventId=0")
    try:
        started = time.perf_counter()
        body = {"message": "What is 6 * 7? Use the calculator."}
        posted = asyncio.ensure_future(json_call(port, "POST", "/v1/chat/first", body))
        async for frame in frames(stream):
            event = json.loads(frame.data)
            if event["type"] == "run-finish":
                if event["payload"]["status"] != "completed":
                    raise RuntimeError(f"the first run ended {event['payload']['status']}")
                break
        await posted
        return time.perf_counter() - started
    finally:
        stream.close()


def _migrated_database(folder: Path) -> Path:
    """A SQLite file in ``folder`` with every migration applied (before any row is timed, so
    its CPU is no row's)."""
    path = folder / "migrated.db"
    env = {**os.environ, "RUNYARD_DATABASE_URL": f"sqlite:///{path}"}
    subprocess.run(
        [sys.executable, "-m", "runyard", "db", "upgrade"],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return path


def _ready(url: str, server: subprocess.Popen[bytes], start: float) -> float:
    while server.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return time.perf_counter() - start
        except OSError:
            pass
        time.sleep(0.005)  # polling a process we do not control; the grain is 5 ms
    raise RuntimeError(f"runyard serve exited with {server.returncode} before it was ready")


RUNYARD_FIRST_RUN = "runyard: import + build + first run"
PEERS_FIRST_RUN = (
    "pydantic-ai: import + build + first run",
    "LangGraph: import + build + first run",
)
HELP = "`runyard --help`"
SERVE = "`runyard serve` to `/readyz` 200"
SERVE_RESTART = "`runyard serve` to `/readyz` 200, database migrated already (a restart)"
FIRST_RUN_AFTER_READY = "`runyard serve`: first chat run after `/readyz` 200, POST to run's end"


def _rows(langgraph_python: str | None, folder: Path) -> dict[str, Callable[[], float]]:
    rows = {
        "bare Python (`-c pass`)": _python("-c", "pass"),
        "`import runyard`": _python("-c", "import runyard"),
        HELP: _python("-m", "runyard", "--help"),
        RUNYARD_FIRST_RUN: _python("-c", _RUNYARD_FIRST_RUN),
    }
    if importlib.util.find_spec("pydantic_ai"):
        rows[PEERS_FIRST_RUN[0]] = _python("-c", _PYDANTIC_AI_FIRST_RUN)
    if langgraph_python is not None:
        rows[PEERS_FIRST_RUN[1]] = _python("-c", _LANGGRAPH_FIRST_RUN, interpreter=langgraph_python)
    elif importlib.util.find_spec("langgraph") and importlib.util.find_spec("langchain"):
        rows[PEERS_FIRST_RUN[1]] = _python("-c", _LANGGRAPH_FIRST_RUN)
    rows[SERVE] = _serve_ready
    migrated = _migrated_database(folder)
    rows[SERVE_RESTART] = lambda: _serve_ready(migrated)
    rows[FIRST_RUN_AFTER_READY] = lambda: _serve_first_run(migrated)
    return rows


def _summary(wall: dict[str, float], cpu: dict[str, float]) -> list[Row]:
    """The summary rows: each target against the median wall time, CPU time alongside."""
    rows = []
    peers = [name for name in PEERS_FIRST_RUN if name in wall]
    what = "cold start: import + build + first one-tool run, whole process, vs the faster peer"
    if peers:
        fastest = min(peers, key=lambda name: wall[name])
        ratio = wall[RUNYARD_FIRST_RUN] / wall[fastest]
        each = "; ".join(
            f"{name.split(':')[0]} {_times(wall, cpu, name)}"
            for name in (RUNYARD_FIRST_RUN, *peers)
        )
        rows.append(
            at_most(
                what,
                ratio,
                0.5,
                "of its time",
                f"{ratio:.2f} of {fastest.split(':')[0]}'s time: {each}",
            )
        )
    else:
        rows.append(Row(what, "≤ 0.5 of its time", "not run: no peer installed", None))
    for name, limit in ((HELP, 0.3), (SERVE, 1.5)):
        rows.append(
            at_most(f"{name}, whole process", wall[name], limit, "s", _times(wall, cpu, name))
        )
    first = wall[FIRST_RUN_AFTER_READY]  # the process's CPU is the whole serve's: not shown
    rows.append(at_most(FIRST_RUN_AFTER_READY, first, 0.5, "s", f"{first:.2f} s"))
    return rows


def _times(wall: dict[str, float], cpu: dict[str, float], name: str) -> str:
    return f"{wall[name]:.2f} s (CPU {cpu[name]:.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="fresh processes per row")
    parser.add_argument(
        "--langgraph-python", help="the interpreter to time LangGraph with (default: this one)"
    )
    json_option(parser)
    args = parser.parse_args()
    source = Path(importlib.util.find_spec("runyard").origin or "?").parent  # type: ignore[union-attr]
    compileall.compile_dir(source, quiet=1)
    folder = tempfile.TemporaryDirectory()
    rows = _rows(args.langgraph_python, Path(folder.name))
    names = list(rows)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            before = _children_cpu()
            times[name].append(rows[name]())
            cpu[name].append(_children_cpu() - before)
    wall = {name: statistics.median(times[name]) for name in names}
    used = {name: statistics.median(cpu[name]) for name in names}
    print(f"runyard from {source}; {args.rounds} fresh processes per row, interleaved")
    print("| fresh process | wall median | wall best | CPU median |\n|---|---:|---:|---:|")
    for name in names:
        print(f"| {name} | {wall[name]:.2f} s | {min(times[name]):.2f} s | {used[name]:.2f} s |")
    summary = _summary(wall, used)
    print("\n| target | measured (wall, CPU) | met |\n|---|---|---|")
    for row in summary:
        print(f"| {row.what}: {row.target} | {row.measured} | {row.verdict} |")
    write_rows(args.json, summary)
    missing = [peer for peer in PEERS_FIRST_RUN if peer not in wall]
    if missing:
        print(f"\nnot installed, so not measured: {', '.join(missing)}")


if __name__ == "__main__":
    main()
