"""What durable steps cost: the journal writes of one step of a run, on SQLite.

    python benchmarks/durable_steps.py [--steps 300] [--calls 1] [--messages 20] [--json PATH]

One step is what the service's journal writes for one model response that calls tools
(``service/runs/journal.py``): one ``record_progress`` with the progress checkpoint (an
``AgentState`` of ``--messages`` messages) and the ``started`` rows of the window, then one per
call as it settles — each fenced by the run's lease epoch, in its own transaction — through the
public ``ToolLedger`` part. Prints the median and p90 milliseconds per step and per write;
``--json PATH`` writes them as a summary row (no target).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from _report import json_option, observed, write_rows

from runyard.messages import AgentMessage
from runyard.runtime import AgentMessageList, AgentState, RunStatus
from runyard.storage import ToolCallEntry, open_store


def _state(messages: int) -> dict[str, object]:
    history = AgentMessageList()
    history.add_input([AgentMessage.user(f"message {i} " + "word " * 40) for i in range(messages)])
    state = AgentState(
        run_id="run_bench", status=RunStatus.RUNNING, message_list=history.serialize()
    )
    return state.model_dump(mode="json")


async def measure(steps: int, calls: int, messages: int) -> tuple[list[float], int]:
    """Seconds per step, and the writes each step makes."""
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(f"sqlite:///{Path(folder) / 'bench.db'}", vectors="exact")
        try:
            run = await store.open_run("run_bench", thread_id="t", tenant_id="bench", owner="me")
            state, took = _state(messages), []
            for step in range(steps):
                ids = [f"s{step}c{n}" for n in range(calls)]
                started = time.perf_counter()
                await store.record_progress(
                    "run_bench",
                    [ToolCallEntry(i, "lookup", "started") for i in ids],
                    epoch=run.lease_epoch,
                    state=state,
                )
                for i in ids:
                    outcome = {"output": {"found": "x" * 200}, "isError": False}
                    settled = ToolCallEntry(i, "lookup", "settled", outcome)
                    await store.record_progress("run_bench", [settled], epoch=run.lease_epoch)
                took.append(time.perf_counter() - started)
        finally:
            await store.close()
    return took, 1 + calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--messages", type=int, default=20)
    json_option(parser)
    args = parser.parse_args()
    took, writes = asyncio.run(measure(args.steps, args.calls, args.messages))
    ms = sorted(t * 1000 for t in took)
    p90 = ms[int(len(ms) * 0.9)]
    median = statistics.median(ms)
    print(f"SQLite, {args.calls} call(s) per step, {args.messages} messages in the checkpoint:")
    print(f"  per step: median {median:.2f} ms, p90 {p90:.2f} ms ({writes} writes)")
    print(f"  per write: median {median / writes:.2f} ms")
    row = observed(
        f"durable steps: the journal writes of one step with {args.calls} tool call(s), SQLite",
        f"median {median:.2f} ms, p90 {p90:.2f} ms ({writes} writes)",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
