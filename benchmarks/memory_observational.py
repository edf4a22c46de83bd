"""Observational memory: how much a tool-heavy transcript shrinks in the model's context.

    python benchmarks/memory_observational.py [--turns 10] [--steps 5] [--write-docs] [--json PATH]

Plays a synthetic autonomous loop (each turn: a user request, ``--steps`` tool calls returning
workflow definitions and execution results, a short answer) through ``Memory.save`` with the
default thresholds (30 000 / 40 000 tokens), then compares the tokens of the whole transcript
with what the model is given at the end: the observation block plus the raw messages not yet
observed. The observer is a deterministic script (one line per request and per tool call), so
the numbers show the mechanism, not the quality of a real observer model: real ratios depend
on the observer model and on the transcript. Token counts are runyard's offline estimates.
"""

from __future__ import annotations

import argparse
import asyncio

from _report import TIMES, json_option, observed, write_rows, write_section
from _workflow_session import observe, workflow

from runyard.memory import Memory, ObservationalConfig
from runyard.memory.observational import count_tokens
from runyard.messages import AgentMessage, ToolCallPart, ToolResultPart
from runyard.models import estimate_tokens
from runyard.runtime import MemoryScope
from runyard.storage import open_store
from runyard.testing import scripted_model

SCOPE = MemoryScope("bench-thread", "bench-user")
START, END = "<!-- memory_observational:start -->", "<!-- memory_observational:end -->"


def _turn(turn: int, steps: int, clock: list[int]) -> list[AgentMessage]:
    def at() -> int:
        clock[0] += 1_000
        return clock[0]

    out = [AgentMessage.user(f"Build and run the sync workflow for batch {turn}.", created_at=at())]
    for step in range(steps):
        call_id = f"call-{turn}-{step}"
        out.append(
            AgentMessage(
                role="assistant",
                parts=[
                    ToolCallPart(
                        tool_call_id=call_id,
                        tool_name="run_workflow",
                        args={"id": f"wf-{turn}-{step}"},
                    )
                ],
                created_at=at(),
            )
        )
        result = ToolResultPart(
            tool_call_id=call_id, tool_name="run_workflow", result=workflow(turn, step)
        )
        out.append(AgentMessage(role="tool", parts=[result], created_at=at()))
    out.append(
        AgentMessage.assistant(f"Batch {turn} is built and ran without errors.", created_at=at())
    )
    return out


async def run(turns: int, steps: int) -> dict[str, float]:
    store = await open_store("memory://")
    observer = scripted_model([observe] * 1_000, model_name="scripted-observer")
    memory = Memory(store, observational=ObservationalConfig(model=observer))
    clock, everything = [1_767_268_800_000], []
    try:
        for turn in range(turns):
            messages = _turn(turn, steps, clock)
            everything.extend(messages)
            await memory.save(SCOPE, messages, model=observer)
            await memory.wait_idle()
        context = await memory.context(SCOPE, model=observer)
        window = await memory.history(SCOPE, [], model=observer)
        log = await store.list_observations(
            SCOPE.thread_id, tenant_id="default", resource_id="bench-user"
        )
    finally:
        await memory.aclose()
        await store.close()
    raw = count_tokens(everything)
    block = estimate_tokens(context.instructions or "")
    unobserved = count_tokens(window)
    observed = raw - unobserved
    return {
        "messages": len(everything),
        "raw": raw,
        "block": block,
        "window": unobserved,
        "context": block + unobserved,
        "observed_ratio": observed / block if block else 0.0,
        "total_ratio": raw / (block + unobserved),
        "observer_calls": len(observer.requests),
        "observations": len(log),
    }


def report(turns: int, steps: int, r: dict[str, float]) -> str:
    return "\n".join(
        [
            "## Observational memory: context compression",
            "",
            f"`python benchmarks/memory_observational.py --turns {turns} --steps {steps}` — a synthetic",
            f"tool-heavy loop of {turns} turns x {steps} tool calls (workflow definitions and execution",
            "results as tool output), saved through `Memory` with the default thresholds",
            "(observer 30 000, reflector 40 000 tokens) and a **deterministic scripted observer**",
            "(one line per request and per tool call). Real ratios depend on the observer model",
            "and on the transcript; these numbers show the mechanism. Tokens are offline estimates.",
            "",
            "| measure | value |",
            "|---|---|",
            f"| messages in the thread | {r['messages']:.0f} |",
            f"| tokens of the whole transcript | {r['raw']:.0f} |",
            f"| observation block in the prompt | {r['block']:.0f} tokens ({r['observations']:.0f} observations) |",
            f"| raw messages still in the window | {r['window']:.0f} tokens |",
            f"| context the model gets | {r['context']:.0f} tokens |",
            f"| compression of the observed part | {r['observed_ratio']:.1f}x |",
            f"| whole transcript vs context | {r['total_ratio']:.1f}x |",
            f"| observer/reflector calls | {r['observer_calls']:.0f} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true", help="update docs/benchmarks.md")
    json_option(parser)
    args = parser.parse_args()
    measured = asyncio.run(run(args.turns, args.steps))
    section = report(args.turns, args.steps, measured)
    print(section)
    summary = observed(
        f"observational memory: whole transcript vs the model's context, {args.turns} turns {TIMES} "
        f"{args.steps} tool calls, scripted observer",
        f"{measured['total_ratio']:.1f}{TIMES} smaller ({measured['raw']:,.0f} → "
        f"{measured['context']:,.0f} tokens)",
    )
    write_rows(args.json, [summary])
    if args.write_docs:
        write_section(START, END, section)


if __name__ == "__main__":
    main()
