"""The service race's memory per held run: a held run's watcher answers with the server's traced
heap when asked (or says it is untraced), and the summary row decides the ⅕ target from that
heap, not from resident memory."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def held_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    module = import_module("_held_runs")
    monkeypatch.setenv(module.RELEASE_DIR, str(tmp_path))
    return module


@pytest.fixture
def tracing() -> Iterator[None]:
    tracemalloc.start()
    yield
    tracemalloc.stop()


def _wait_for(path: Path) -> str:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never written"
        time.sleep(0.01)  # the watcher writes it from its worker thread
    return path.read_text()


async def _file(path: Path) -> str:
    """The text of a file the watcher writes, once it is there."""
    return await asyncio.to_thread(_wait_for, path)


async def _asked_heap(held_runs: ModuleType, folder: Path, token: str) -> str:
    run = asyncio.create_task(held_runs.hold(token))
    assert await _file(folder / f"{token}.held") == "1"
    await asyncio.to_thread((folder / f"{token}{held_runs.MEASURE}").touch)
    answer = await _file(folder / f"{token}{held_runs.HEAP}")
    await asyncio.to_thread((folder / token).touch)
    await run
    return answer


@pytest.mark.usefixtures("tracing")
async def test_a_held_run_answers_with_the_traced_heap(
    held_runs: ModuleType, tmp_path: Path
) -> None:
    answer = await _asked_heap(held_runs, tmp_path, "traced")

    assert answer.isdigit()
    assert int(answer) > 0
    assert not (tmp_path / f"traced{held_runs.MEASURE}").exists()  # the ask was taken


async def test_a_server_without_tracemalloc_says_so(held_runs: ModuleType, tmp_path: Path) -> None:
    assert await _asked_heap(held_runs, tmp_path, "untraced") == held_runs.UNTRACED


def _results(monkeypatch: pytest.MonkeyPatch, runyard_kib: float, langgraph_kib: float) -> object:
    """One round of 100 held runs in which no server's RSS moved and each runyard's heap grew
    by ``runyard_kib`` per run, LangGraph Server's by ``langgraph_kib``."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    measures, report = import_module("_race_measures"), import_module("_race_report")
    found = measures.Round()
    for name in report.SYSTEMS:
        kib = langgraph_kib if name == report.LANGGRAPH else runyard_kib
        grown = int(kib * 1024 * 100)
        found.memory[name] = measures.HeldMemory(100, 10_000, 10_000 + grown, 150.0, 150.0, 1.0)
    options = measures.Options(Path("/nowhere"), 1, 1.0, 1.0, (1, 10, 100), 100, 10, True)
    return report.Results([found], options, [1.0], "now", "versions")


@pytest.mark.parametrize(("runyard_kib", "met"), [(30.0, "yes"), (40.0, "no")])
def test_the_memory_row_is_met_at_a_fifth_of_langgraphs_heap_per_run(
    monkeypatch: pytest.MonkeyPatch, runyard_kib: float, met: str
) -> None:
    results = _results(monkeypatch, runyard_kib, langgraph_kib=160.0)
    row = import_module("_race_report").memory_row(results)

    assert row["met"] == met
    assert row["measured"].startswith(
        f"{runyard_kib:.0f} KiB vs 160 KiB of Python heap per held run"
    )
    assert "RSS growth 0 vs 0 KiB" in row["measured"]
