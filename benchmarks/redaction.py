"""What secret redaction costs per streamed text delta, before and after the shapes became one
alternation and the catalog's credentials were learnt on reload instead of polled.

    python benchmarks/redaction.py [--deltas 20000] [--repeats 7] [--json PATH]

Every text delta the event writer stores passes ``SecretRedactor.redact_data`` (each string
of the event: keys and values), and, since split secrets are held back, the redactor's
hold-back. "before" is the redactor as it was (each built-in shape its own regular
expression, run one after another, and one followed source polled on every call), rebuilt
here from its code; "after" is ``runyard.redaction`` now. Both know the same 8 secrets and
see the same deltas (a few words each, every one different, no secret: the common case).
Prints a Markdown table: the median over ``--repeats`` runs of the time per delta; ``--json
PATH`` writes them as a summary row (no target).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from _report import json_option, observed, write_rows

from runyard.redaction import BUILTIN_SECRET_PATTERNS, REDACTED, SecretRedactor

SECRETS = [f"secret-value-{i:02d}-" + "x" * 24 for i in range(8)]
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "it",
    "talks",
]


class Before:
    """The redactor's ``redact`` as it was: known values, then each shape in turn, after
    polling its followed source (the catalog) for a change."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._shapes = [re.compile(p) for p in BUILTIN_SECRET_PATTERNS.values()]
        values = sorted(secrets, key=len, reverse=True)
        self._by_value = re.compile("|".join(re.escape(v) for v in values))
        catalog = object()
        self._followed = [(lambda: catalog, [catalog])]

    def redact(self, text: str) -> str:
        for current, seen in self._followed:
            if current() is not seen[0]:
                seen[0] = current()
        out = self._by_value.sub(REDACTED, text)
        for shape in self._shapes:
            out = shape.sub(_whole_or_group, out)
        return text if out == text else out

    def redact_data(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            return {self.redact_data(k): self.redact_data(v) for k, v in value.items()}
        return value


def _whole_or_group(match: re.Match[str]) -> str:
    if "secret" not in match.re.groupindex or match.group("secret") is None:
        return REDACTED
    start, end = (i - match.start() for i in match.span("secret"))
    return match.group(0)[:start] + REDACTED + match.group(0)[end:]


def deltas(count: int) -> list[dict[str, Any]]:
    """Text-delta events as the writer redacts them (``event_to_dict``)."""
    return [
        {
            "type": "text-delta",
            "runId": "run_01JDBENCH000000000000",
            "agentId": "agent-001",
            "payload": {"text": f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]}{i} "},
        }
        for i in range(count)
    ]


def per_delta_us(work: Callable[[dict[str, Any]], object], events: list[dict[str, Any]]) -> float:
    started = time.perf_counter_ns()
    for event in events:
        work(event)
    return (time.perf_counter_ns() - started) / len(events) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    json_option(parser)
    args = parser.parse_args()
    events = deltas(args.deltas)
    before, after = Before(SECRETS), SecretRedactor(SECRETS)
    hold_back = after.hold_back()

    def after_streamed(event: dict[str, Any]) -> object:
        hold_back.push(event["payload"]["text"])
        return after.redact_data(event)

    rows: dict[str, Callable[[dict[str, Any]], object]] = {
        "before: `redact_data` of the event": before.redact_data,
        "after: `redact_data` of the event": after.redact_data,
        "after: hold-back push + `redact_data`": after_streamed,
    }
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.repeats):  # interleaved, so the machine's noise lands on every row
        for name, work in rows.items():
            times[name].append(per_delta_us(work, events))
    print(f"{args.deltas} text deltas, {len(SECRETS)} known secrets, median of {args.repeats}\n")
    print("| redaction per text delta | µs |")
    print("|---|---|")
    median = {name: statistics.median(samples) for name, samples in times.items()}
    for name, us in median.items():
        print(f"| {name} | {us:.1f} |")
    before, after, streamed = median.values()
    row = observed(
        "secret redaction per text delta, before → after (hold-back included)",
        f"{before:.0f} µs → {after:.0f} µs ({streamed:.0f} µs)",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
