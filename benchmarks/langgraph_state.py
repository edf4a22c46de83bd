"""The LangGraph face's state read on a thread with 1,000 runs: folding the log vs snapshots.

    python benchmarks/langgraph_state.py [--runs 1000] [--deltas 30] [--repeat 20] [--json PATH]

Writes the thread ``thread_history.py`` writes (``--runs`` finished runs through runyard's
``EventLog``, each: ``run-start``, five reasoning deltas, a tool call with its result,
``--deltas`` text deltas, ``run-finish``; the user message of each run) and snapshots its runs
as their endings do. Then times, in one process and interleaved (``_timing.interleave``), what
``GET /langgraph/threads/{id}/state`` folds (the thread's ``values``, also in a thread's body and
at a run stream's start):

- **fold the whole log**: what ``thread_state.folded`` did before — read every event, parse it,
  fold it into ``ThreadValues``;
- **snapshots**: what it does now — read the snapshots, replay their transcripts, fold the
  (here empty) log after them;
- **snapshots, a checkpoint halfway** (``get_state(checkpoint_id=...)``): the snapshots before
  it, and the log after them read (to the end, for a takeover's ``run-resumed`` past it) and
  folded up to it;
- **history (``run_ends``), snapshots**: the values at the end of every run.

HTTP and JSON encoding cost the same on both paths and are left out. ``--json PATH`` writes the
state read's medians as a summary row (no target).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from _report import Row, json_option, observed
from _timing import Variant, interleave
from thread_history import OWNER, THREAD, fill, print_reads, thread_read_main

from runyard.faces.langgraph.thread_state import folded, human, run_ends
from runyard.faces.langgraph.thread_values import ThreadValues
from runyard.messages import AgentMessage
from runyard.protocol import RunStartEvent, parse_event
from runyard.service import EventLog, ServiceParts
from runyard.service.bus import InProcessEventBus
from runyard.service.threads.history import store_snapshots
from runyard.storage import Store, Thread, open_store


@dataclass
class _Parts:
    """The one part a state read takes."""

    store: Store


async def fold_everything(store: Store, thread: Thread) -> ThreadValues:
    """The state as ``folded`` made it before snapshots (same reads, same fold; the thread has
    no takeover, so leaving superseded events out drops nothing)."""
    events = [parse_event(e.data) for e in await store.read_events(thread.id)]
    ids = [e.payload.message_id for e in events if isinstance(e, RunStartEvent)]
    found = await store.get_messages_by_ids(
        thread.id, ids, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id
    )
    values = ThreadValues({m.id: human(m) for m in found if isinstance(m, AgentMessage)})
    for event in events:
        values.apply(event)
    return values


async def measure(args: argparse.Namespace, db: Path) -> Row:
    store = await open_store(f"sqlite:///{db}", vectors="exact")
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    key = OWNER.thread_key(THREAD)
    parts = cast(ServiceParts, _Parts(store))
    try:
        await store.save_thread(key, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
        await fill(store, events, args.runs, args.deltas)
        await store_snapshots(store, key)
        thread = await store.get_thread(key, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
        assert thread is not None
        total = await store.last_event_id(key)
        now, _ = await folded(parts, OWNER, thread)
        assert now.values() == (await fold_everything(store, thread)).values()

        async def before() -> object:
            return await fold_everything(store, thread)

        async def snapshots() -> object:
            return await folded(parts, OWNER, thread)

        async def halfway() -> object:
            return await folded(parts, OWNER, thread, total // 2)

        async def history() -> object:
            return await run_ends(parts, OWNER, thread)

        timed = await interleave(
            [
                Variant("fold the whole log (before)", "state", before),
                Variant("snapshots (now)", "state", snapshots),
                Variant("snapshots (now)", "state at a checkpoint halfway", halfway),
                Variant("snapshots (now)", "history (every run's end)", history),
            ],
            warmup=2,
            iterations=args.repeat,
        )
    finally:
        await events.close()
        await bus.close()
        await store.close()
    messages = len(now.values()["messages"])
    print(f"{args.runs} runs, {total} events, {messages} messages, SQLite, n={args.repeat}")
    print_reads("what", timed)
    return observed(
        f"LangGraph `get_state` on a thread with {args.runs:,} runs, folding the log → snapshots",
        f"{timed[0].median:,.0f} ms → {timed[1].median:.0f} ms",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    json_option(parser)
    thread_read_main(parser, measure, "state.db")


if __name__ == "__main__":
    main()
