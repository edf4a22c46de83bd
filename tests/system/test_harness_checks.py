"""The harness's own yardsticks, checked without servers: a client's record against the log
counts lost, duplicated, reordered and altered events as it should, and the report turns a
results file into the page, pending scenarios named as such."""

from __future__ import annotations

from report import render
from results import percentile, timing
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
    assert "| kills | 3 | - |" in page
