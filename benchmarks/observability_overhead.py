"""What observability costs a run: no telemetry, metrics and logs only (tracing off), tracing on.

The same one-tool run as runtime_overhead.py (the model calls ``add``, the tool returns, the
model answers; a zero-latency FunctionModel), streamed as the server streams every run, timed
interleaved in one event loop with:

- ``none``: the SDK's default (``NO_TELEMETRY``);
- ``tracing off``: what ``runyard serve`` gives a run when no OTLP endpoint is set —
  ``ObservedTelemetry`` (metrics, log context, a JSON log line per tool call, written to
  /dev/null) behind ``RedactingTelemetry``;
- ``tracing on``: the same with an SDK tracer provider and a batch processor whose exporter
  discards the spans (the network is not what is measured).

The result is printed and written to the "Observability overhead" section of docs/benchmarks.md;
``--json PATH`` writes the summary row.

    python benchmarks/observability_overhead.py [--iterations N] [--no-write] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from _report import Row, json_option, observed, write_rows, write_section
from _timing import Timed, Variant, interleave
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from runyard import Agent, tool
from runyard.observability import (
    Metrics,
    Tracing,
    configure_logging,
)
from runyard.redaction import RedactingTelemetry, SecretRedactor
from runyard.telemetry import NO_TELEMETRY, Telemetry
from runyard.telemetry.content_gate import ContentGate
from runyard.telemetry.observed import ObservedTelemetry

START = "<!-- observability-overhead:start -->"
END = "<!-- observability-overhead:end -->"
PROMPT = "What is 2 + 3?"


@tool
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _returned(messages: list[pai.ModelMessage]) -> bool:
    last = messages[-1]
    return isinstance(last, pai.ModelRequest) and any(
        isinstance(p, pai.ToolReturnPart) for p in last.parts
    )


async def _stream(messages: list[pai.ModelMessage], info: AgentInfo) -> Any:
    """Call ``add`` first, then answer: a zero-latency model (a FunctionModel stream)."""
    if _returned(messages):
        yield "It is 5."
    else:
        yield {0: DeltaToolCall(name="add", json_args='{"a": 2, "b": 3}', tool_call_id="c1")}


def _model() -> FunctionModel:
    return FunctionModel(stream_function=_stream)


class _Discard(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _telemetries() -> dict[str, tuple[Telemetry, Tracing | None]]:
    redactor = SecretRedactor()
    off = ObservedTelemetry(Metrics()).bound(tenant="t", agent="bench", version="v1")
    tracing = Tracing.with_processor(BatchSpanProcessor(_Discard()))
    on = ObservedTelemetry(Metrics(), tracing).bound(tenant="t", agent="bench", version="v1")
    return {
        "none": (NO_TELEMETRY, None),
        "tracing off (metrics, logs)": (_served(off, redactor), None),
        "tracing on": (_served(on, redactor), tracing),
    }


def _served(observed: ObservedTelemetry, redactor: SecretRedactor) -> Telemetry:
    """As ``RunTelemetry.of`` wraps it for a run of the server."""
    return ContentGate(RedactingTelemetry(observed, redactor), observed.records_content)


def _variant(name: str, telemetry: Telemetry) -> Variant:
    agent = Agent("bench", _model(), tools=[add])

    async def run() -> Any:
        return [chunk async for chunk in await agent.stream(PROMPT, telemetry=telemetry)]

    return Variant(name, "stream", run)


def _render(timed: list[Timed], iterations: int, warmup: int) -> str:
    base = timed[0].median
    rows = [
        "| telemetry | streamed median | p90 | added to the run |",
        "|---|---|---|---|",
    ]
    for t in timed:
        added = "—" if t is timed[0] else f"{(t.median - base) * 1000:+.0f} µs"
        rows.append(f"| {t.system} | {t.median:.3f} ms | {t.p90:.3f} ms | {added} |")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Measured {when}, Python {platform.python_version()} on {platform.system()} "
        f"{platform.machine()} ({os.cpu_count()} CPUs, shared); {warmup} warm-up runs, then "
        f"{iterations} timed runs of every row, interleaved. One run: 2 model calls, 1 tool "
        "call, so 4 spans.\n\n" + "\n".join(rows)
    )


def _summary(timed: list[Timed]) -> Row:
    base, off, on = (t.median for t in timed)
    return observed(
        "telemetry per streamed one-tool run: `runyard serve`'s default (tracing off) / tracing on",
        f"+{(off - base) * 1000:,.0f} µs / +{(on - base) * 1000:,.0f} µs on a {base:.2f} ms run",
    )


async def _measure(iterations: int, warmup: int) -> list[Timed]:
    telemetries = _telemetries()
    variants = [_variant(name, telemetry) for name, (telemetry, _) in telemetries.items()]
    try:
        return await interleave(variants, warmup=warmup, iterations=iterations)
    finally:
        for _, tracing in telemetries.values():
            if tracing is not None:
                tracing.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000, help="timed runs per row")
    parser.add_argument("--warmup", type=int, default=100, help="untimed runs per row first")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the docs")
    json_option(parser)
    args = parser.parse_args(argv)
    with open(os.devnull, "w") as sink:
        configure_logging("json", stream=sink)
        timed = asyncio.run(_measure(args.iterations, args.warmup))
        logging.getLogger().handlers.clear()
    body = _render(timed, args.iterations, args.warmup)
    print(body)
    write_rows(args.json, [_summary(timed)])
    if not args.no_write:
        write_section(START, END, body, heading="## Observability overhead")
        print("written to docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main()
