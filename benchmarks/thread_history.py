"""``GET /v1/threads/{id}/messages`` on a thread with 1,000 runs: folding the log vs snapshots.

    python benchmarks/thread_history.py [--runs 1000] [--deltas 30] [--repeat 20] [--json PATH]

Writes one thread of ``--runs`` finished runs into a SQLite file through runyard's ``EventLog``
(each run: ``run-start``, five reasoning deltas, a tool call with its result, ``--deltas`` text
deltas, ``run-finish`` with usage) and the user message of each run. Then times, in one process
and interleaved (``_timing.interleave``), the first page (50 messages) of the history:

- **fold the whole log**: what ``Threads.messages`` did before snapshots, on every call — read
  every event, fold every run into its tree, keep the last 50 messages;
- **snapshots, first page** and **snapshots, an older page** (``cursor``): what it does now —
  a page of run snapshots and the log after the newest of them (here: nothing);

and, once, the lazy catch-up a thread from before snapshots pays on its first read (fold
everything, store 1,000 snapshots). HTTP and JSON encoding cost the same on both paths and are
left out. ``--json PATH`` writes the first page's medians as a summary row (no target).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _report import Row, json_option, observed, write_rows
from _timing import Timed, Variant, interleave

from runyard.messages import AgentMessage
from runyard.protocol import (
    AgentTreeBuilder,
    ReasoningDeltaEvent,
    ReasoningDeltaPayload,
    RunFinishEvent,
    RunFinishPayload,
    RunStartEvent,
    RunStartPayload,
    RunUsage,
    TextDeltaEvent,
    TextDeltaPayload,
    ToolCallEvent,
    ToolCallPayload,
    ToolResultEvent,
    ToolResultPayload,
    WireEvent,
    parse_event,
)
from runyard.service import EventLog, Owner, Threads
from runyard.service.bus import InProcessEventBus
from runyard.service.threads.history import store_snapshots
from runyard.storage import Store, open_store

OWNER = Owner("bench", "alice")
THREAD = "history"
AGENT = "agent-001"
PAGE = 50


def run_events(run: int, message_id: str, deltas: int) -> list[WireEvent]:
    """One finished run's events."""
    run_id = f"run_{run:05d}"
    events: list[WireEvent] = [
        RunStartEvent(run_id=run_id, agent_id=AGENT, payload=RunStartPayload(message_id=message_id))
    ]
    events += [
        ReasoningDeltaEvent(
            run_id=run_id, agent_id=AGENT, payload=ReasoningDeltaPayload(text=f"think {i} ")
        )
        for i in range(5)
    ]
    call = ToolCallPayload(
        tool_call_id=f"call_{run}", tool_name="calculator", args={"expression": "2+3*4"}
    )
    events.append(ToolCallEvent(run_id=run_id, agent_id=AGENT, payload=call))
    result = ToolResultPayload(tool_call_id=f"call_{run}", result={"result": 14})
    events.append(ToolResultEvent(run_id=run_id, agent_id=AGENT, payload=result))
    events += [
        TextDeltaEvent(run_id=run_id, agent_id=AGENT, payload=TextDeltaPayload(text=f"word{i} "))
        for i in range(deltas)
    ]
    usage = RunUsage(input_tokens=100, output_tokens=40, total_tokens=140, cost=0.0)
    finish = RunFinishPayload(status="completed", usage=usage)
    events.append(RunFinishEvent(run_id=run_id, agent_id=AGENT, payload=finish))
    return events


async def fill(store: Store, events: EventLog, runs: int, deltas: int) -> None:
    key = OWNER.thread_key(THREAD)
    users = [AgentMessage.user(f"question {run}") for run in range(runs)]
    await store.save_messages(key, users, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
    async with events.writer(key) as writer:
        for run, user in enumerate(users):
            for event in run_events(run, user.id, deltas):
                writer.emit(event)
            if run % 50 == 0:
                await writer.flush()


async def fold_everything(store: Store) -> list[dict[str, Any]]:
    """The history as ``Threads.messages`` built it before snapshots (same reads, same fold)."""
    key = OWNER.thread_key(THREAD)
    log = await store.read_events(key)
    builders: dict[str | None, AgentTreeBuilder] = {}
    starts: dict[str | None, str] = {}
    for stored in log:
        event = parse_event(stored.data)
        builders.setdefault(event.run_id, AgentTreeBuilder()).apply(event)
        if event.type == "run-start":
            starts[event.run_id] = event.payload.message_id
    users = {
        m.id: m
        for m in await store.get_messages_by_ids(
            key, list(starts.values()), tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id
        )
    }
    rows: list[dict[str, Any]] = []
    for run_id, builder in builders.items():
        user = users.get(starts.get(run_id, ""))
        if user is not None:
            rows.append({"id": user.id, "role": "user"})
        tree = builder.tree()
        rows.append({"id": run_id, "content": tree.text_content, "agentTree": tree.model_dump()})
    return rows[-PAGE:]


async def measure(args: argparse.Namespace, db: Path) -> Row:
    store = await open_store(f"sqlite:///{db}", vectors="exact")
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    threads = Threads(events, store)
    key = OWNER.thread_key(THREAD)
    try:
        await store.save_thread(key, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
        await fill(store, events, args.runs, args.deltas)
        total = await store.last_event_id(key)
        started = time.perf_counter()
        await store_snapshots(store, key)
        catch_up = time.perf_counter() - started
        first = await threads.messages(OWNER, THREAD, limit=PAGE)
        older = int(first["nextCursor"])
        assert len(first["messages"]) == PAGE
        assert len(await fold_everything(store)) == PAGE

        async def newest() -> object:
            return await threads.messages(OWNER, THREAD, limit=PAGE)

        async def earlier() -> object:
            return await threads.messages(OWNER, THREAD, limit=PAGE, cursor=older)

        async def folded() -> object:
            return await fold_everything(store)

        timed = await interleave(
            [
                Variant("fold the whole log (before)", "first page", folded),
                Variant("snapshots (now)", "first page", newest),
                Variant("snapshots (now)", "older page", earlier),
            ],
            warmup=2,
            iterations=args.repeat,
        )
    finally:
        await events.close()
        await bus.close()
        await store.close()
    print(f"{args.runs} runs, {total} events, pages of {PAGE} messages, SQLite, n={args.repeat}")
    print_reads("page", timed)
    print(
        f"| lazy catch-up of a thread without snapshots (once) | — | {catch_up * 1000:.0f} ms | |"
    )
    folded_page, snapshot_page = timed[0].median, timed[1].median
    return observed(
        f"`/messages` first page on a thread with {args.runs:,} runs, folding the log → snapshots",
        f"{folded_page:,.0f} ms → {snapshot_page:.0f} ms",
    )


def print_reads(column: str, timed: list[Timed]) -> None:
    """The timed reads as a table: each variant's median and p90."""
    print(f"| read | {column} | median | p90 |")
    print("|---|---|---|---|")
    for t in timed:
        print(f"| {t.system} | {t.mode} | {t.median:.1f} ms | {t.p90:.1f} ms |")


def thread_read_main(
    parser: argparse.ArgumentParser,
    measure: Callable[[argparse.Namespace, Path], Awaitable[Row]],
    db: str,
) -> None:
    """Run a benchmark of reads on a thread of ``--runs`` runs (``fill``): ``parser`` given the
    size options, then ``measure`` on a new SQLite file ``db``, its row written with ``--json``."""
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--deltas", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        row = asyncio.run(measure(args, Path(tmp) / db))
    write_rows(args.json, [row])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    json_option(parser)
    thread_read_main(parser, measure, "history.db")


if __name__ == "__main__":
    main()
