"""What per-step durability costs a run, service-side: one-tool runs through ``RunManager`` on
SQLite, with the run journal off, with settled calls in a transaction of their own (as before),
and with settled calls in the event log's batch (now).

    python benchmarks/step_durability.py [--iterations 200] [--warmup 20] [--json PATH]

A run is timed from ``RunManager.start`` to the thread being idle again (its ``run-finish``
stored, its row closed): the model (a zero-latency ``FunctionModel``) calls ``lookup`` once,
then answers. Its one step journals a progress checkpoint with the call's ``started`` row and
the call's ``settled`` row (docs/service.md, Durable runs and takeover). The three variants
swap the journal ``RunSegment`` uses and run interleaved in one event loop (``_timing``). The
durability cost is a variant's median minus the journal-off median, and its share of the
journal-off run. ``--json PATH`` writes the summary row: the cost now, against the target of at
most 20% of the run's service-side time.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _report import at_most, json_option, write_rows
from _timing import Timed, Variant, interleave
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

import runyard.service.runs.segment as run_segment
from runyard import Agent, tool
from runyard.runtime import AgentState, JournalCall
from runyard.service import EventLog, Owner, RunManager
from runyard.service.bus import InProcessEventBus
from runyard.service.runs.journal import StoreRunJournal
from runyard.storage import ToolCallEntry, open_store

OWNER = Owner("bench", "user")
TARGET_SHARE = 20
"""The most per-step durability may add to a run, in percent of the run without it."""


@tool
async def lookup(query: str) -> str:
    """Look it up."""
    return f"found {query}"


async def _stream(messages: list[pai.ModelMessage], info: AgentInfo) -> Any:
    last = messages[-1]
    if isinstance(last, pai.ModelRequest) and any(
        isinstance(p, pai.ToolReturnPart) for p in last.parts
    ):
        yield "Found it."
    else:
        yield {0: DeltaToolCall(name="lookup", json_args='{"query": "q"}', tool_call_id="c1")}


class _NoJournal(StoreRunJournal):
    """Durability off: nothing is journaled."""

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        return None


class _SettledApart(StoreRunJournal):
    """As before: every call's row, settled ones too, in a fenced transaction of its own."""

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        if state is not None:
            await self._taken()
        rows = [
            ToolCallEntry(c.tool_call_id, c.tool_name, "settled", {"output": c.output})
            if c.settled
            else ToolCallEntry(c.tool_call_id, c.tool_name, "started")
            for c in calls
        ]
        saved = None if state is None else state.model_dump(mode="json")
        await self._store.record_progress(
            self._run.run_id, rows, epoch=self._run.epoch, state=saved
        )


JOURNALS: dict[str, type[StoreRunJournal]] = {
    "journal off": _NoJournal,
    "settled apart (before)": _SettledApart,
    "settled with the events (now)": StoreRunJournal,
}


async def _measure(iterations: int, warmup: int) -> list[Timed]:
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(f"sqlite:///{Path(folder) / 'bench.db'}")
        bus = InProcessEventBus()
        events = EventLog(store, bus)
        agent = Agent("bench", FunctionModel(stream_function=_stream), tools=[lookup])
        runs = RunManager(store, events, {"bench": agent}, default_agent="bench")
        threads = itertools.count()

        def variant(name: str, journal: type[StoreRunJournal]) -> Variant:
            async def run() -> None:
                run_segment.StoreRunJournal = journal  # type: ignore[misc]
                thread = f"t{next(threads)}"
                await runs.start(OWNER, thread, "look it up")
                await runs.wait_idle(OWNER.thread_key(thread))

            return Variant(name, "service", run)

        try:
            variants = [variant(name, journal) for name, journal in JOURNALS.items()]
            return await interleave(variants, warmup=warmup, iterations=iterations)
        finally:
            run_segment.StoreRunJournal = StoreRunJournal  # type: ignore[misc]
            await runs.aclose(settle_seconds=0)
            await events.close()
            await bus.close()
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    json_option(parser)
    args = parser.parse_args()
    timed = asyncio.run(_measure(args.iterations, args.warmup))
    base = timed[0].median
    print("| variant | run median | p90 | durability cost | share of the run |")
    print("|---|---|---|---|---|")
    for t in timed:
        cost = t.median - base
        share = "—" if t is timed[0] else f"{cost / base:.0%}"
        added = "—" if t is timed[0] else f"{cost:+.2f} ms"
        print(f"| {t.system} | {t.median:.2f} ms | {t.p90:.2f} ms | {added} | {share} |")
    now = timed[-1].median - base
    row = at_most(
        "per-step durability cost: one-tool run under `RunManager`, SQLite, journal on vs off",
        now / base * 100,
        TARGET_SHARE,
        "% of the run's service-side time",
        f"{now:+.1f} ms ({now / base:.0%}) on a {base:.1f} ms run",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
