"""The harness's own yardsticks, checked without servers: a client's record against the log
counts lost, duplicated, reordered and altered events as it should, and the report turns a
results file into the page, pending scenarios named as such; the RSS trend sees growth, not
spikes, one process at a time."""

from __future__ import annotations

from report import render
from results import percentile, timing
from rss_trend import growth, lives, window
from sse_record import Delivery, delivery_figures, frames


def event(n: int) -> dict[str, object]:
    return {"type": "text-delta", "runId": "r1", "agentId": "a", "payload": {"text": str(n)}}


LOG = {i: event(i) for i in range(1, 6)}


def test_a_clean_record_counts_nothing() -> None:
    clean = Delivery([(i, event(i)) for i in range(1, 6)], LOG)
    assert delivery_figures([clean]) == {
        "events": 5,
        "lost": 0,
        "duplicated": 0,
        "reordered": 0,
        "altered": 0,
    }


def test_a_record_with_every_fault_counts_each_once() -> None:
    seen = [(1, event(1)), (3, event(3)), (2, event(2)), (3, event(3)), (5, event(9))]
    assert delivery_figures([Delivery(seen, LOG)]) == {
        "events": 5,
        "lost": 1,
        "duplicated": 1,
        "reordered": 1,
        "altered": 1,
    }


def test_frames_split_complete_events_and_keep_the_rest() -> None:
    text = 'retry: 1000\n\n: ping\n\nid: 7\ndata: {"type": "x", "n": "a:b"}\n\nid: 8\ndata: {'
    found, rest = frames(text)
    assert found == [(7, {"type": "x", "n": "a:b"})]
    assert rest == "id: 8\ndata: {"


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 0.5), percentile(values, 0.99)) == (50.0, 99.0)
    assert timing([])["p50"] is None


def test_the_report_names_pending_scenarios_and_their_figures() -> None:
    document = {
        "generated": "2026-11-23T20:00:00Z",
        "scale": "full",
        "machine": {"cpus": 2, "python": "3.11.7"},
        "scenarios": {
            "test_kill": {
                "title": "(a) kill -9 a replica",
                "outcome": "pending",
                "seconds": 40.0,
                "reason": "needs takeover (durable-takeover branch)",
                "figures": {"runs": 12, "kills": 3, "lost": 0},
            },
            "test_race": {
                "title": "(d) racing POSTs",
                "outcome": "passed",
                "seconds": 9.5,
                "reason": "",
                "figures": {"posts": 500},
            },
        },
    }
    page = render(document, "docs/reliability.json")
    assert "| (a) kill -9 a replica | pending: needs takeover (durable-takeover branch) |" in page
    assert "| (d) racing POSTs | passed | 9.5 | posts: 500 |" in page
    assert page.index("(a) kill") < page.index("(d) racing")
    assert "| figure | (a) |\n" in page  # (d) measures none of the figures
    assert "| kills | 3 |\n" in page


def test_the_report_shows_takeover_streams_across_a_blip_and_schemathesis() -> None:
    spread = {"count": 8, "p50": 2.4, "p95": 2.5, "p99": 2.6, "max": 2.6, "mean": 2.4}
    document = {
        "generated": "2026-11-29T12:00:00Z",
        "scale": "full",
        "machine": {"cpus": 2, "python": "3.11.7"},
        "scenarios": {
            "test_kill": scenario(
                "(a) kill -9",
                runs=8,
                kills=2,
                takeover_seconds=spread,
                completion_seconds={**spread, "p95": 6.9},
                resumed_work_seconds={**spread, "p95": 4.5},
                tools_executed_twice=0,
            ),
            "test_postgres": scenario(
                "(c) restart PostgreSQL",
                postgres_restarts=9,
                stream_connections=144,
                streams_cut=0,
                lost=0,
                events=18870,
            ),
            "test_schema": scenario(
                "(s) Schemathesis",
                examples_per_operation=500,
                operations=60,
                requests=90000,
                responses={"2xx": 9000, "4xx": 81000},
                failures=0,
            ),
        },
    }
    page = render(document, "docs/reliability.json")
    assert "| (a) | 2 | 8 | 2.4 / 2.5 / 2.6 | 2.4 / 6.9 / 2.6 | 4.5 | 0 |" in page
    assert "144 stream connections, **0 cut off mid-response**, 0 events lost of 18870" in page
    assert "| (s) Schemathesis | passed | 500 | 60 | 90000 | 2xx: 9000, 4xx: 81000 | 0 | 1.0 |" in (
        page
    )


def scenario(title: str, **figures: object) -> dict[str, object]:
    return {"title": title, "outcome": "passed", "seconds": 1.0, "reason": "", "figures": figures}


def test_the_rss_trend_ignores_spikes_and_sees_steady_growth() -> None:
    flat = [(t * 10.0, 200.0 + (40.0 if t % 5 == 0 else 0.0)) for t in range(30)]
    growing = [(t * 10.0, 200.0 * (1 + 0.1 * t / 29)) for t in range(30)]
    assert growth(flat) == 0.0  # a spike in five samples moves the median slope not at all
    assert round(growth(growing), 2) == 0.1
    assert growth([(0.0, 100.0)]) == 0.0


def test_a_restarted_replica_starts_a_life_of_its_own_judged_only_if_it_spans_the_window() -> None:
    series = [
        {"t": float(t), "replica": 0, "start": 1, "rss_mb": 100.0 + t} for t in range(0, 100, 10)
    ]
    series += [
        {"t": float(t), "replica": 2, "start": 1 if t < 70 else 2, "rss_mb": 90.0}
        for t in range(0, 100, 10)
    ]
    found = lives(series, since=window(100))
    assert [(life.replica, life.start, len(life.samples)) for life in found] == [
        (0, 1, 5),
        (2, 1, 2),
        (2, 2, 3),
    ]
    assert [life.judged(40) for life in found] == [True, False, False]
    assert (window(600), window(7200), window(9000)) == (300, 3600, 3600)


def test_the_report_shows_the_fault_soak_as_bounded_or_two_hours() -> None:
    life = {"replica": 0, "start": 1, "samples": 9, "from_t": 90.0, "rss_mb_median": 180.0}
    figures = {
        "seconds": 180.0,
        "warm_up_seconds": 60.0,
        "rss_window_seconds": 90.0,
        "rss_lives": [{**life, "growth": 0.012, "judged": True}],
        "rss_series": [{"t": 90.0, "replica": 0, "start": 1, "rss_mb": 180.0}],
        "idle_baseline": {"fds": [23], "database_sessions": 11, "redis_clients": 2},
        "idle_after": {"fds": [24], "database_sessions": 10, "redis_clients": 2},
    }
    entry = {"title": "(h) soak with faults", "outcome": "passed", "seconds": 300.0, "reason": ""}
    document = {
        "generated": "2026-11-29T06:00:00Z",
        "scale": "full",
        "machine": {"cpus": 2, "python": "3.11.7"},
        "scenarios": {"test_soak_faults": {**entry, "figures": figures}},
    }
    page = render(document, "docs/reliability.json")
    assert "a **bounded run** of 180 s, its last 90 s (half) judged" in page
    assert "| 0 | 1 | 9 | 90.0 | 180.0 | +1.2% | yes |" in page
    assert "| after | 24 | 10 | 2 |" in page
    assert "rss_lives" not in page  # too long for the summary's cell
    figures["seconds"] = 7200.0
    assert "the two-hour run (`make soak`) of 7200 s" in render(document, "x")
