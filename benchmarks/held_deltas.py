"""What the event writer's hold-back costs per streamed text delta, before and after its fast path.

    python benchmarks/held_deltas.py [--deltas 20000] [--repeats 11] [--json PATH]

``HeldDeltas.take`` over the deltas the demo model streams (one word each, with its leading
space; no secret in them), with 8 known secrets. "before" is the hold-back without
``SecretRedactor.settled`` (every delta scanned, its last word held and the event rebuilt);
"after" is ``runyard.redaction`` now (a delta nothing can grow a secret out of passes as the very
event). Both run interleaved in one process; prints the median microseconds per delta (``--json
PATH``: as a summary row, no target).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _report import json_option, observed, write_rows

from runyard.protocol import TextDeltaEvent, TextDeltaPayload
from runyard.redaction import HoldBack, SecretRedactor
from runyard.service.event_log.held_deltas import HeldDeltas

WORDS = [
    "the",
    "user",
    "said",
    "hello",
    "and",
    "I",
    "will",
    "echo",
    "it",
    "back",
    "word",
    "by",
    "word",
    "to",
    "you",
    "now",
    "please",
]
SECRETS = [f"secret-value-{i:04d}" for i in range(8)]


def _deltas(count: int) -> list[TextDeltaEvent]:
    rng = random.Random(1)
    return [
        TextDeltaEvent(
            run_id="run_1",
            agent_id="agent-001",
            payload=TextDeltaPayload(text=f" {rng.choice(WORDS)}{i % 7}"),
        )
        for i in range(count)
    ]


class _WithoutFastPath(SecretRedactor):
    """The redactor as it was: its hold-back scans every delta."""

    def hold_back(self) -> HoldBack:
        return HoldBack(self.replacements, self.hold_chars, self.pending)


def _microseconds_per_delta(redactor: SecretRedactor, deltas: list[TextDeltaEvent]) -> float:
    held = HeldDeltas(redactor)
    started = time.perf_counter()
    for event in deltas:
        held.take(event)
    return (time.perf_counter() - started) / len(deltas) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=11)
    json_option(parser)
    args = parser.parse_args()
    deltas = _deltas(args.deltas)
    variants = {"before": _WithoutFastPath(SECRETS), "after": SecretRedactor(SECRETS)}
    taken: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, redactor in variants.items():
            taken[name].append(_microseconds_per_delta(redactor, deltas))
    median = {name: statistics.median(values) for name, values in taken.items()}
    for name, us in median.items():
        print(f"{name}: median {us:.1f} µs per delta")
    row = observed(
        "the hold-back per demo-model delta (`HeldDeltas.take`), before → after its fast path",
        f"{median['before']:.0f} µs → {median['after']:.0f} µs",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
