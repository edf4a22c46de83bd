"""The benchmarks that run runyard as several replicas on PostgreSQL + Redis: the service race's
``--postgres`` mode says it did not run in rows of its own, and PostgreSQL's CPU is counted per
backend."""

from __future__ import annotations

import json
from importlib import import_module
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def benchmarks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))


@pytest.mark.usefixtures("benchmarks")
def test_the_postgres_race_without_langgraph_gives_its_own_rows_not_run(tmp_path: Path) -> None:
    race = import_module("service_vs_langgraph")
    rows_file = tmp_path / "rows.json"

    race.main(
        [
            "--postgres",
            "postgresql://nobody@127.0.0.1:1/none",
            "--langgraph-venv",
            str(tmp_path / "no-venv"),
            "--json",
            str(rows_file),
        ]
    )

    rows = json.loads(rows_file.read_text())
    assert [(r["what"], r["target"]) for r in rows] == list(import_module("_race_replicas").ROWS)
    assert all(r["measured"].startswith("not run: no LangGraph Server at") for r in rows)
    assert any(
        "10 concurrent threads" in r["what"] and "3\N{MULTIPLICATION SIGN}" in r["target"]
        for r in rows
    )


@pytest.mark.usefixtures("benchmarks")
def test_backends_cpu_counts_a_new_backend_whole_and_a_gone_one_not_at_all() -> None:
    backends = import_module("_postgres_cpu").Backends
    before = backends({1: 2.0, 2: 5.0})
    after = backends({1: 2.5, 3: 0.25})  # 2 ended, 3 began

    assert after.since(before) == pytest.approx(0.75)
