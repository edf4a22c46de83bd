"""What runyard adds around a LangGraph graph: CPU per run of a ``GraphAgent`` over the graph's
own, in one process.

    python benchmarks/graph_overhead.py [--runs 300] [--repeats 5] [--json PATH]

The graph is LangGraph Server's in the service race (``langgraph_peer/graph.py``'s
``create_agent`` over the LangChain fake of ``_fake_chat_model``, one async tool; it calls
``add(1, 2)`` and streams "The sum is 3." as four deltas). "graph alone" streams it as runyard
does — ``astream`` with ``messages`` and ``updates``, subgraphs, an ``InMemorySaver`` per run —
and reads every part; "runyard" runs it as a ``GraphAgent`` (``CustomGraph``) and reads every
chunk of the run: the run's state, the message list, the chunks, the finish. No store, no
journal, no HTTP: the service's own costs are the service race's. Both alternate, ``--repeats``
times; the row is the median difference of CPU time per run (target ≤ 2 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from _fake_chat_model import AddCallingChatModel
from _report import at_most, json_option, write_rows
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

from runyard.agent.graph_agent import GraphAgent
from runyard.runtime.graph import CustomGraph

LIMIT_MS = 2.0


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


GRAPH: Any = create_agent(AddCallingChatModel(), tools=[add])
AGENT = GraphAgent("assistant", "runyard:demo", CustomGraph(GRAPH, "langgraph_peer"))


async def _graph_alone(index: int) -> None:
    graph = GRAPH.copy(update={"checkpointer": InMemorySaver()})
    parts = graph.astream(
        {"messages": [{"role": "user", "content": "hi"}]},
        {"configurable": {"thread_id": f"t{index}"}},
        stream_mode=["messages", "updates"],
        subgraphs=True,
    )
    async for _ in parts:
        pass


async def _runyard(index: int) -> None:
    stream = await AGENT.stream("hi")
    async for _ in stream:
        pass
    assert (await stream.result()).text == "The sum is 3."


async def _cpu_ms_per_run(run: Callable[[int], Awaitable[None]], runs: int) -> float:
    started = time.process_time()
    for index in range(runs):
        await run(index)
    return (time.process_time() - started) / runs * 1000


async def _measure(runs: int, repeats: int) -> tuple[float, float]:
    for run in (_graph_alone, _runyard):  # warm up both
        await _cpu_ms_per_run(run, 30)
    alone, ours = [], []
    for _ in range(repeats):
        alone.append(await _cpu_ms_per_run(_graph_alone, runs))
        ours.append(await _cpu_ms_per_run(_runyard, runs))
    return statistics.median(alone), statistics.median(ours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    json_option(parser)
    args = parser.parse_args()
    alone, ours = asyncio.run(_measure(args.runs, args.repeats))
    added = ours - alone
    print(f"graph alone {alone:.2f} ms, runyard {ours:.2f} ms CPU per run: +{added:.2f} ms")
    row = at_most(
        "runyard around a LangGraph graph (`GraphAgent`, the race's create_agent graph, one "
        "process): CPU per run over the graph's own",
        added,
        LIMIT_MS,
        "ms",
        f"+{added:.2f} ms on the graph's {alone:.2f} ms",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
