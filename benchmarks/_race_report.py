"""The service race's results: summary rows (``make bench``'s table) and its docs section."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from _race_measures import HeldMemory, Options, Round
from _report import cpu_name
from _report import write_section as write_between

__all__ = [
    "GRAPH_APP",
    "LANGGRAPH",
    "ROWS",
    "RUNYARD",
    "RUNYARD_GRAPH",
    "RUNYARD_MEMORY",
    "SYSTEMS",
    "Results",
    "memory_row",
    "render_memory",
    "render_rows",
    "render_section",
    "versions",
    "write_section",
]

START = "<!-- service_vs_langgraph:start -->"
END = "<!-- service_vs_langgraph:end -->"
RUNYARD, RUNYARD_MEMORY, LANGGRAPH = "runyard", "runyard, memory://", "LangGraph Server"
RUNYARD_GRAPH = "runyard, same graph"
SYSTEMS = (RUNYARD, RUNYARD_MEMORY, RUNYARD_GRAPH, LANGGRAPH)
"""runyard on its default embedded store (SQLite, the one the targets are held to), on its
in-memory store (the like of LangGraph's in-memory runtime), on SQLite serving LangGraph
Server's own graph (``GRAPH_APP``), and LangGraph Server."""
GRAPH_APP = "service_race_app:create_graph"
GRAPH_TARGET = 3.0  # runyard's runs per second over LangGraph's, both on LangGraph's graph
_TIMES = "\N{MULTIPLICATION SIGN}"
THROUGHPUT_TARGET = 5.0  # runyard's runs per second over LangGraph's
MEMORY_TARGET = 5.0  # LangGraph's memory per active run over runyard's
ROWS: tuple[tuple[str, str], ...] = (
    ("service race vs LangGraph Server: runs/s, 1 thread", f"≥ 5{_TIMES} LangGraph's"),
    ("service race vs LangGraph Server: runs/s, 10 concurrent threads", f"≥ 5{_TIMES} LangGraph's"),
    (
        "service race vs LangGraph Server: runs/s, 100 concurrent threads",
        f"≥ 5{_TIMES} LangGraph's",
    ),
    ("service race: POST → first streamed event, p50 / p99 (1 / 10 / 100 threads)", "—"),
    ("service race: memory per concurrent active run", "≤ ⅕ of LangGraph's"),
    (
        "service race: 1,000 SSE listeners on one thread (release → all have the run's end; RSS)",
        "—",
    ),
    ("service race: server CPU per run (10 threads)", "—"),
    (
        "service race on the same graph (LangGraph Server's create_agent graph, served by "
        "runyard as a graph: agent): runs/s, 1 / 10 / 100 threads",
        f"≥ 3{_TIMES} LangGraph's at each",
    ),
    (
        "service race on the same graph: POST → first event p50 / p99 (1 / 10 / 100 threads), "
        "memory per active run",
        "—",
    ),
)
_PACKAGES = ("pydantic-ai-slim", "fastapi", "uvicorn")
_PEER_PACKAGES = ("langgraph-api", "langgraph-runtime-inmem", "langgraph", "langchain", "uvicorn")


@dataclass(frozen=True)
class Results:
    """Every round of one invocation, with what they ran on."""

    rounds: list[Round]
    options: Options
    loads: list[float]  # the 1-minute load average before, between and after the rounds
    when: str
    versions: str

    @classmethod
    def of(cls, rounds: list[Round], options: Options, loads: list[float]) -> Results:
        when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        return cls(rounds, options, loads, when, versions(options.venv))

    def median(self, value: Callable[[Round], float]) -> float:
        return statistics.median(value(r) for r in self.rounds)

    def each(self, value: Callable[[Round], float], form: str) -> str:
        """The median over the rounds, and with several rounds their range in brackets."""
        values = [value(r) for r in self.rounds]
        middle = form.format(statistics.median(values))
        if len(values) == 1:
            return middle
        return f"{middle} ({form.format(min(values))}\N{EN DASH}{form.format(max(values))})"

    def load_range(self) -> str:
        loads = [*self.loads]
        for found in self.rounds:
            loads += [t.load for t in found.throughput.values()]
            loads += [m.load for m in found.memory.values()]
            loads += [f.load for f in found.fanout.values()]
        return f"{min(loads):.1f}\N{EN DASH}{max(loads):.1f}"


def versions(venv: Path) -> str:
    """runyard's and its peer's versions of what serves the race, as the docs print them."""
    ours = ", ".join(f"{name} {_version(name)}" for name in _PACKAGES)
    return f"runyard with {ours}; peer: {_peer_versions(venv)}"


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def _peer_versions(venv: Path) -> str:
    code = (
        "import json, importlib.metadata as m; "
        f"print(json.dumps({{n: m.version(n) for n in {list(_PEER_PACKAGES)!r}}}))"
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return "versions unknown"
    return ", ".join(f"{k} {v}" for k, v in json.loads(done.stdout).items())


def _rate(found: Round, name: str, threads: int) -> float:
    return found.throughput[(name, threads)].per_second


def _rates(results: Results, threads: int) -> dict[str, float]:
    """Runs per second of every system with ``threads`` concurrent threads, medians of rounds."""
    return {name: results.median(lambda r, n=name: _rate(r, n, threads)) for name in SYSTEMS}


def _load(results: Results) -> str:
    return f"load average {results.load_range()}, {len(results.rounds)} round(s)"


def _yes(met: bool) -> str:
    return "yes" if met else "no"


def render_rows(results: Results) -> list[dict[str, str]]:
    """The summary rows: medians over the rounds, and the load average they ran under."""
    load = _load(results)
    rows = []
    for (what, target), threads in zip(ROWS, results.options.concurrency, strict=False):
        rate = _rates(results, threads)
        ratio, in_memory = rate[RUNYARD] / rate[LANGGRAPH], rate[RUNYARD_MEMORY] / rate[LANGGRAPH]
        measured = (
            f"{rate[RUNYARD]:.1f}/s vs {rate[LANGGRAPH]:.1f}/s: {ratio:.1f}{_TIMES} "
            f"(runyard on memory:// {rate[RUNYARD_MEMORY]:.1f}/s: {in_memory:.1f}{_TIMES}; {load})"
        )
        rows.append(_row(what, target, measured, _yes(ratio >= THROUGHPUT_TARGET)))
    rows.append(_row(*ROWS[3], _latency_summary(results), "—"))
    rows.append(memory_row(results))
    rows.append(_row(*ROWS[5], _fanout_summary(results), "—"))
    cpu = {
        name: results.median(lambda r, n=name: r.throughput[(n, 10)].cpu_ms_per_run)
        for name in SYSTEMS
    }
    measured = ", ".join(f"{name} {cpu[name]:.1f} ms" for name in SYSTEMS)
    rows.append(_row(*ROWS[6], measured, "—"))
    rows.extend(_same_graph_rows(results, load))
    return rows


def _kib_per_run(results: Results) -> dict[str, float]:
    """Python heap per held run of every system, in KiB, medians of the rounds."""
    return {name: results.median(lambda r, n=name: r.memory[n].kib_per_run) for name in SYSTEMS}


def memory_row(results: Results) -> dict[str, str]:
    """The summary row of memory per active run: the traced heap decides, RSS is shown."""
    kib = _kib_per_run(results)
    rss = {name: results.median(lambda r, n=name: r.memory[n].rss_kib_per_run) for name in SYSTEMS}
    factor = kib[LANGGRAPH] / kib[RUNYARD] if kib[RUNYARD] > 0 else float("inf")
    measured = (
        f"{kib[RUNYARD]:.0f} KiB vs {kib[LANGGRAPH]:.0f} KiB of Python heap per held run "
        f"({results.options.held_runs} held): {factor:.1f}{_TIMES} less (runyard on memory:// "
        f"{kib[RUNYARD_MEMORY]:.0f} KiB; RSS growth {rss[RUNYARD]:.0f} vs {rss[LANGGRAPH]:.0f} "
        f"KiB per run; {_load(results)})"
    )
    return _row(*ROWS[4], measured, _yes(factor >= MEMORY_TARGET))


def _same_graph_rows(results: Results, load: str) -> list[dict[str, str]]:
    """The race on LangGraph Server's own graph: runyard serving it against LangGraph Server."""
    ratios, rates = [], []
    for threads in results.options.concurrency:
        rate = _rates(results, threads)
        ratios.append(rate[RUNYARD_GRAPH] / rate[LANGGRAPH])
        rates.append(f"{rate[RUNYARD_GRAPH]:.1f} vs {rate[LANGGRAPH]:.1f}/s")
    measured = (
        f"{'; '.join(rates)}: " + " / ".join(f"{r:.1f}{_TIMES}" for r in ratios) + f" ({load})"
    )
    met = _yes(all(r >= GRAPH_TARGET for r in ratios))
    latency = ", ".join(
        f"{results.median(lambda r, t=t: r.throughput[(RUNYARD_GRAPH, t)].latency_ms('first_event', 50)):.0f}"
        f" / {results.median(lambda r, t=t: r.throughput[(RUNYARD_GRAPH, t)].latency_ms('first_event', 99)):.0f}"
        for t in results.options.concurrency
    )
    kib = _kib_per_run(results)
    shown = (
        f"{latency} ms; {kib[RUNYARD_GRAPH]:.0f} KiB of Python heap per held run vs LangGraph "
        f"Server's {kib[LANGGRAPH]:.0f} KiB"
    )
    return [_row(*ROWS[7], measured, met), _row(*ROWS[8], shown, "—")]


def _row(what: str, target: str, measured: str, met: str) -> dict[str, str]:
    return {"what": what, "target": target, "measured": measured, "met": met}


def _latency_summary(results: Results) -> str:
    def both(name: str) -> str:
        return ", ".join(
            f"{results.median(lambda r, t=t: r.throughput[(name, t)].latency_ms('first_event', 50)):.0f}"
            f" / {results.median(lambda r, t=t: r.throughput[(name, t)].latency_ms('first_event', 99)):.0f}"
            for t in results.options.concurrency
        )

    return "; ".join(f"{name} {both(name)} ms" for name in SYSTEMS)


def _fanout_summary(results: Results) -> str:
    def one(name: str) -> str:
        to_all = results.median(lambda r: r.fanout[name].to_all_ms)
        grown = results.median(lambda r: r.fanout[name].listening_mib - r.fanout[name].idle_mib)
        return f"{name} {to_all:.0f} ms, +{grown:.0f} MiB"

    return "; ".join(one(name) for name in SYSTEMS)


def render_section(results: Results) -> str:
    """This benchmark's part of docs/benchmarks.md: method, figures of this run, targets."""
    o = results.options
    blocks = [
        "## Service race: runyard's service against LangGraph Server",
        _METHOD,
        f"Measured {results.when} on {cpu_name()} ({os.cpu_count()} CPUs, shared with other jobs), "
        f"Python {platform.python_version()}; {results.versions}. "
        f"{len(results.rounds)} round(s) of {o.seconds:g} s per throughput row; "
        f"{o.held_runs} held runs; {o.listeners} listeners; 1-minute load average "
        f"{results.load_range()} while it ran. With several rounds a figure is their median, "
        "their range in brackets.",
        _throughput_table(results),
        _memory_table(results),
        _fanout_table(results),
        _targets_table(render_rows(results)),
    ]
    return "\n\n".join(blocks)


_METHOD = """\
`python benchmarks/service_vs_langgraph.py --langgraph-venv /tmp/lg-venv --write-docs`
regenerates this part (`--quick`: one short round, about 1.5 minutes; `--json PATH`: only the
summary rows, which `make bench` puts in the table at the top; `--only memory`: the held runs'
part alone, printed, no docs written). LangGraph Server lives in a virtual environment of its
own, never the project's: `python3 -m venv /tmp/lg-venv &&
/tmp/lg-venv/bin/pip install "langgraph-cli[inmem]" langgraph-sdk langchain`. Without it the
script reports "not run" and exits 0.

- **Servers**: each its own process on a loopback port, started by the script, on its default
  embedded store. runyard: its HTTP app (`create_app`, what `runyard serve` runs) under uvicorn,
  one worker, a SQLite file, no Redis, titles off (`benchmarks/service_race_app.py`); the
  targets are held to this one. **runyard, memory://** is the same app on runyard's in-memory
  store, the like of LangGraph's in-memory runtime, to show what the store costs. **runyard,
  same graph** is the app on SQLite serving LangGraph Server's own graph,
  `benchmarks/langgraph_peer/graph.py`, as a catalog's `graph:` agent runs it (`GraphAgent`:
  the LangChain fake chat model and LangGraph's own tool node, inside runyard's run), so the
  two servers race on one graph (target: 3 times LangGraph Server's runs/s). LangGraph
  Server: `langgraph dev --no-reload` (the in-memory runtime of `langgraph-api`: the server that
  runs without a licence key or Docker; its production runtime needs both) serving
  `benchmarks/langgraph_peer/graph.py`, file persistence off, analytics and version check off,
  and `--n-jobs-per-worker` raised to the most runs the race keeps in flight (`langgraph dev`
  runs **one** run at a time by default). Its queue looks for new runs every 0.5 s when it found
  none the last time, which is what a lone client waits for: "POST → first model output" minus
  the run's own time is that wait. All log warnings only. LangGraph's environment has uvloop
  and httptools, which its uvicorn uses; the project's has neither (asyncio and h11).
- **Agent**: the same on all. One async tool `add(a, b)`; a zero-latency fake chat model that
  calls `add(1, 2)`, then streams "The sum is 3." as four deltas (runyard: a pydantic-ai
  `FunctionModel`, `benchmarks/_fake_models.py`; LangGraph: `create_agent` over a LangChain
  `BaseChatModel`, `benchmarks/_fake_chat_model.py`). Every streamed run's text is checked.
- **Client** (`benchmarks/_race_clients.py`: raw asyncio HTTP/1.1, one connection per request,
  one Python process on the same two cores): runyard: open `GET /v1/events/{threadId}` from the
  thread's last event id, `POST /v1/chat/{threadId}`, read to `run-finish`, close: two requests
  per run. LangGraph: `POST /threads/{id}/runs/stream` with `stream_mode: ["messages-tuple"]`,
  read to its end: one request per run, and `POST /threads` for each new thread.
- **Throughput**: N clients, each on its own thread (a new one every 10 runs), run after run
  for the row's seconds; runs/s = runs finished / time until the last one finished. Server CPU
  per run: the user + system time of the server's process tree over the row, divided by its
  runs; it depends far less than wall time on what else the machine runs. Latencies: POST sent
  → first streamed event (runyard `run-start`, LangGraph `metadata`), → first model output (the
  tool call), → the run's end, over every run of the row.
- **Memory per active run**: the servers of this part run with `tracemalloc` on
  (`PYTHONTRACEMALLOC=1`, one frame per allocation; only here, never for the throughput rows).
  One probe run is held in its first model call (the fake model waits for a file the script
  writes, `benchmarks/_held_runs.py`), then the held runs, each with its client streaming; both
  times the probe's watcher, asked through a file, collects garbage and reports the Python heap
  the server traces (`tracemalloc.get_traced_memory()`). Per held run: the heap with them held,
  minus the heap before, divided by their number; then all are released and must finish with
  the answer. It is the same code in both servers (standard library only), and it counts what
  each held run keeps allocated whether or not the heap had free room, which resident memory
  does not: a heap the warm-up left with free room grows no page for a held run's few KiB (the
  RSS columns are shown beside, to be read with that in mind). Memory outside Python's
  allocator is not counted (SQLite's page cache, libuv's buffers under LangGraph's uvloop).
  Measured twice per round, the second kept: the first grows what a server keeps once it has
  held that many (pools, worker threads). LangGraph Server's `--n-jobs-per-worker` is at least
  the held runs plus the probe, so none waits in its queue (the script waits until every one
  is inside the model).
- **Listeners**: one held run; that many SSE connections to its thread (runyard `GET
  /v1/events/{threadId}`, LangGraph `GET /threads/{id}/runs/{runId}/stream`), all connected;
  server RSS; released: time from the release to the last listener holding the run's end (the
  fake model notices the release within 20 ms), to the median one, and from the first event a
  listener got after the release to the last end.
- **Rounds**: each round starts every server afresh, traced, for the held runs, and afresh
  again, untraced, for the listeners and then the throughput rows (so neither memory figure
  sits on a heap another measure grew first); each start warms every server up (10 threads, a
  few seconds); every measure alternates between the servers in an order that rotates."""


def _throughput_table(results: Results) -> str:
    rows = [
        "| threads | server | runs/s | server CPU per run | POST → first event p50 / p99 "
        "| → first model output p50 / p99 | → run's end p50 |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for threads in results.options.concurrency:
        for name in SYSTEMS:
            key = (name, threads)

            def ms(attribute: str, p: float, k: tuple[str, int] = key) -> str:
                return results.each(lambda r: r.throughput[k].latency_ms(attribute, p), "{:.1f}")

            rows.append(
                f"| {threads} | {name} | {results.each(lambda r, k=key: r.throughput[k].per_second, '{:.1f}')} "
                f"| {results.each(lambda r, k=key: r.throughput[k].cpu_ms_per_run, '{:.1f}')} ms "
                f"| {ms('first_event', 50)} / {ms('first_event', 99)} ms "
                f"| {ms('first_output', 50)} / {ms('first_output', 99)} ms "
                f"| {ms('end', 50)} ms |"
            )
    return "\n".join(rows)


def _memory_table(results: Results) -> str:
    rows = [
        "| server | Python heap before → with the runs held | KiB of heap per held run "
        "| RSS before → with the runs held | RSS KiB per held run |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in SYSTEMS:
        held = [r.memory[name] for r in results.rounds]
        heap = _span(held, "idle_heap", "held_heap", 2**-20, "{:.1f}")
        rss = _span(held, "idle_mib", "held_mib", 1, "{:.0f}")
        kib = results.each(lambda r, n=name: r.memory[n].kib_per_run, "{:.1f}")
        rss_kib = results.each(lambda r, n=name: r.memory[n].rss_kib_per_run, "{:.0f}")
        rows.append(f"| {name} | {heap} | {kib} | {rss} | {rss_kib} |")
    return "\n".join(rows)


def _span(held: list[HeldMemory], before: str, after: str, scale: float, form: str) -> str:
    """Medians over the rounds of two attributes of ``held``, times ``scale``: "a → b MiB"."""
    ends = (
        form.format(statistics.median(getattr(m, a) for m in held) * scale) for a in (before, after)
    )
    return " → ".join(ends) + " MiB"


def render_memory(results: Results) -> str:
    """What ``--only memory`` prints before its summary row: when and how it ran, its table."""
    return "\n\n".join(
        [
            f"Measured {results.when}; {results.versions}. {len(results.rounds)} round(s), "
            f"{results.options.held_runs} held runs; 1-minute load average "
            f"{results.load_range()}.",
            _memory_table(results),
        ]
    )


def _fanout_table(results: Results) -> str:
    rows = [
        f"| server | RSS idle → {results.options.listeners} listeners | release → last listener "
        "has the end | → median listener | first event → last end |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in SYSTEMS:
        rss = (
            f"{results.median(lambda r, n=name: r.fanout[n].idle_mib):.0f} → "
            f"{results.median(lambda r, n=name: r.fanout[n].listening_mib):.0f} MiB"
        )
        rows.append(
            f"| {name} | {rss} | {results.each(lambda r, n=name: r.fanout[n].to_all_ms, '{:.0f}')} ms "
            f"| {results.each(lambda r, n=name: r.fanout[n].p50_ms, '{:.0f}')} ms "
            f"| {results.each(lambda r, n=name: r.fanout[n].spread_ms, '{:.0f}')} ms |"
        )
    return "\n".join(rows)


def _targets_table(summary: list[dict[str, str]]) -> str:
    rows = ["| what | target | measured (medians of the rounds) | met |", "|---|---|---|---|"]
    for row in summary:
        met = row["met"] if row["met"] != "no" else "**no**"
        rows.append(f"| {row['what']} | {row['target']} | {row['measured']} | {met} |")
    return "\n".join(rows)


def write_section(section: str) -> None:
    """Replace this benchmark's section of docs/benchmarks.md, leaving the others alone."""
    write_between(START, END, section)
