"""Observational memory under ``runyard serve``: a long tool-heavy session stays bounded.

    python benchmarks/memory_observational_serve.py [--turns 200] [--steps 5]
        [--latency MODEL_MS:OBSERVER_MS ...] [--reflector-tokens 40000] [--write-docs]
        [--json PATH]

Posts ``--turns`` messages one after the other to runyard's real HTTP app (in-process, over
ASGI; SQLite file; memory built by ``runyard.service.catalog.served_memory`` from the settings
``RUNYARD_OBSERVATIONAL_MEMORY=true`` and the default thresholds, 30 000 / 40 000 tokens). Each
turn is the loop of ``_workflow_session``: ``--steps`` ``run_workflow`` calls returning ~1,600
tokens each, then an answer. One scripted model plays the agent and the observer; each
``--latency`` value is one session whose model and observer calls take that long, so the
background observer competes with the runs as a real one would. The next message is posted as
soon as a run ends.

Recorded from what the model was sent: per run, the raw history its first request carries, the
observation block in its instructions, and the largest request of the run; and how many runs had
to wait for the observer. Token counts are runyard's offline estimates.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _report import Row, json_option, write_rows, write_section
from _workflow_session import OBSERVER_PROMPT, observe, request_text, workflow
from pydantic_ai import RunContext
from pydantic_ai import messages as pai
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.settings import ModelSettings

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app
from runyard.memory import Memory
from runyard.memory.observational import count_tokens
from runyard.messages import AgentMessage
from runyard.models import estimate_tokens, from_model_messages
from runyard.service import Owner, served_memory
from runyard.storage import open_store
from runyard.testing import ScriptedModel, Turn, call, text
from runyard.tools import tool

OWNER = Owner("bench", "alice")
HEADERS = {"X-Runyard-Tenant": OWNER.tenant_id, "X-Runyard-User": OWNER.user_id}
THREAD = "session"
DEFAULT_REFLECTOR = Settings.model_fields["reflector_observation_tokens"].default
START, END = "<!-- memory_observational_serve:start -->", "<!-- memory_observational_serve:end -->"


@tool
async def run_workflow(id: str) -> dict[str, object]:
    """Build and execute the workflow ``id`` (``wf-<turn>-<step>``); its definition and runs."""
    _, turn, step = id.split("-")
    return workflow(int(turn), int(step))


class SessionModel(ScriptedModel):
    """The agent of the loop and the observer, each call taking its configured time."""

    def __init__(self, steps: int, model_ms: float, observer_ms: float) -> None:
        super().__init__([self._respond_to] * 1_000_000, model_name="session")
        self._steps, self._model_s, self._observer_s = steps, model_ms / 1000, observer_ms / 1000

    async def request(
        self,
        messages: list[pai.ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> pai.ModelResponse:
        await self._pause(messages)
        return await super().request(messages, model_settings, model_request_parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[pai.ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        await self._pause(messages)
        async with super().request_stream(
            messages, model_settings, model_request_parameters, run_context
        ) as stream:
            yield stream

    async def _pause(self, messages: list[pai.ModelMessage]) -> None:
        observing = request_text(messages).startswith(OBSERVER_PROMPT)
        seconds = self._observer_s if observing else self._model_s
        if seconds:
            await asyncio.sleep(seconds)  # a benchmark: standing in for a provider's latency

    def _respond_to(self, messages: list[pai.ModelMessage]) -> Turn:
        if request_text(messages).startswith(OBSERVER_PROMPT):
            return observe(messages)
        said = from_model_messages(messages)
        start = max(i for i, m in enumerate(said) if m.role == "user")
        turn = int(said[start].text.split()[-1].rstrip("."))
        done = sum(len(m.tool_results) for m in said[start:])
        if done < self._steps:
            return call("run_workflow", {"id": f"wf-{turn}-{done}"})
        return text(f"Batch {turn} is built and ran without errors.")


@dataclass
class Session:
    """What one benchmark session measured."""

    turns: int
    steps: int
    threshold: int
    reflector: int
    model_ms: float
    observer_ms: float
    session_tokens: int = 0
    messages: int = 0
    raw: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    largest: list[int] = field(default_factory=list)
    turn_seconds: list[float] = field(default_factory=list)
    waits: int = 0
    observer_calls: int = 0
    observations: int = 0
    seconds: float = 0.0


async def run(
    turns: int, steps: int, model_ms: float, observer_ms: float, reflector_tokens: int
) -> Session:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            database_url=f"sqlite:///{Path(folder) / 'runyard.db'}",
            auth="proxy",  # the session acts for OWNER through the identity headers
            observational_memory=True,
            observer_model="",
            reflector_observation_tokens=reflector_tokens,
            _env_file=None,  # type: ignore[call-arg]
        )
        model = SessionModel(steps, model_ms, observer_ms)
        store = await open_store(settings.database_url)
        memory = served_memory(store, settings)
        agent = Agent("assistant", model, tools=[run_workflow], memory=memory)
        app = create_app(settings, store=store, agents={"assistant": agent}, titles=False)
        session = Session(
            turns,
            steps,
            settings.observer_message_tokens,
            settings.reflector_observation_tokens,
            model_ms,
            observer_ms,
        )
        try:
            async with app.router.lifespan_context(app):
                await _play(app, session)
                await memory.wait_idle()
                await _collect(memory, session)
        finally:
            await memory.aclose()
            await store.close()
    _measure(model, session)
    return session


async def _play(app: Any, session: Session) -> None:
    runs = app.state.runyard.parts.runs
    transport = httpx.ASGITransport(app=app)
    started = time.perf_counter()
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for turn in range(session.turns):
            posted = time.perf_counter()
            message = f"Build and run the sync workflow for batch {turn}."
            response = await client.post(
                f"/v1/chat/{THREAD}", json={"message": message}, headers=HEADERS
            )
            response.raise_for_status()
            await runs.wait_idle(OWNER.thread_key(THREAD))
            session.turn_seconds.append(time.perf_counter() - posted)
    session.seconds = time.perf_counter() - started


async def _collect(memory: Memory, session: Session) -> None:
    key, owner = OWNER.thread_key(THREAD), {"tenant_id": "bench", "resource_id": "alice"}
    stored = await memory.store.get_messages(key, **owner)
    session.messages = len(stored)
    session.session_tokens = count_tokens(stored)
    session.observations = len(await memory.store.list_observations(key, **owner))
    assert memory.observational is not None
    session.waits = memory.observational.waits


def _measure(model: SessionModel, session: Session) -> None:
    """Per run: the raw history and the observation block of its first request, and its
    largest request (the raw history, the block and the run's own calls so far)."""
    runs: list[list[list[pai.ModelMessage]]] = []
    for request in model.requests:
        if request_text(request).startswith(OBSERVER_PROMPT):
            session.observer_calls += 1
            continue
        said = from_model_messages(request)
        if said[-1].role == "user":
            runs.append([])
        runs[-1].append(request)
    for requests in runs:
        first = from_model_messages(requests[0])
        session.raw.append(count_tokens([m for m in first[:-1] if isinstance(m, AgentMessage)]))
        session.blocks.append(estimate_tokens(_instructions(requests[0])))
        session.largest.append(max(_request_tokens(r) for r in requests))


def _instructions(request: list[pai.ModelMessage]) -> str:
    found = [m.instructions for m in request if isinstance(m, pai.ModelRequest) and m.instructions]
    return found[-1] if found else ""


def _request_tokens(request: list[pai.ModelMessage]) -> int:
    return count_tokens(from_model_messages(request)) + estimate_tokens(_instructions(request))


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def _rows(s: Session) -> list[tuple[str, str]]:
    ms = [t * 1000 for t in s.turn_seconds]
    return [
        ("model / observer call takes", f"{s.model_ms:g} ms / {s.observer_ms:g} ms"),
        ("messages stored / tokens of the whole session", f"{s.messages} / {s.session_tokens}"),
        (
            "raw history at a run's start: max / median (threshold)",
            f"{max(s.raw)} / {statistics.median(s.raw):.0f} ({s.threshold})",
        ),
        (
            "observation block: max / at the end (reflector threshold)",
            f"{max(s.blocks)} / {s.blocks[-1]} ({s.reflector})",
        ),
        ("largest request of any run: raw + block + the run's own calls", f"{max(s.largest)}"),
        ("largest request in the last 50 runs", f"{max(s.largest[-50:])}"),
        ("runs that waited for the observer", f"{s.waits} of {s.turns}"),
        (
            "observer and reflector calls / observations kept",
            f"{s.observer_calls} / {s.observations}",
        ),
        ("a turn, post to settled: p50 / p95", f"{statistics.median(ms):.0f} / {_p95(ms):.0f} ms"),
        ("whole session", f"{s.seconds:.1f} s"),
    ]


def summary(s: Session) -> Row:
    """The summary row of one session: the raw history stays under the threshold, nobody waits."""
    return Row(
        f"raw history at a run's start, {s.turns}-turn tool-heavy session under `runyard serve`"
        f" (model / observer calls {s.model_ms:g} / {s.observer_ms:g} ms)",
        f"≤ {s.threshold:,} tokens (the threshold), no run waiting",
        f"{max(s.raw):,} max, {s.waits} of {s.turns} waited",
        max(s.raw) <= s.threshold and s.waits == 0,
    )


def report(sessions: list[Session]) -> str:
    s = sessions[0]
    columns = [_rows(session) for session in sessions]
    lines = [
        "## Observational memory under `runyard serve`: a long session stays bounded",
        "",
        f"`python benchmarks/memory_observational_serve.py --turns {s.turns} --steps {s.steps}"
        + "".join(f" --latency {x.model_ms:g}:{x.observer_ms:g}" for x in sessions)
        + f" --reflector-tokens {s.reflector}`",
        "",
        f"{s.turns} messages posted one after the other (the next as soon as a run ends) to",
        "runyard's HTTP app, in-process over ASGI on a SQLite file, its memory built by",
        "`runyard.service.catalog.served_memory` from `RUNYARD_OBSERVATIONAL_MEMORY=true`, the default",
        f"observer threshold ({s.threshold} tokens) and a reflector threshold of {s.reflector}",
        "(under the default 40 000, so that the reflector runs within the session). Each turn"
        if s.reflector < DEFAULT_REFLECTOR
        else "(the default). Each turn",
        f"the agent calls `run_workflow` {s.steps} times (~1,600 tokens per result), then",
        "answers. One scripted model plays the agent and the observer",
        "(`benchmarks/_workflow_session.py`); each column makes their calls take the time given,",
        "so the background observer competes with the runs as a real one would. Tokens are",
        "runyard's offline estimates of what the model was sent.",
        "",
        "| measure | " + " | ".join(f"run {n + 1}" for n in range(len(sessions))) + " |",
        "|---|" + "---|" * len(sessions),
    ]
    for index, (label, _) in enumerate(columns[0]):
        lines.append(f"| {label} | " + " | ".join(c[index][1] for c in columns) + " |")
    waited = sum(x.waits for x in sessions)
    verdict = (
        "so no run waited for the observer."
        if waited == 0
        else f"yet {waited} runs in all waited for it (the observer fell behind)."
    )
    return "\n".join([*lines, "", *_bound_note(sessions), f"  {verdict}", *NOTES])


def _bound_note(sessions: list[Session]) -> list[str]:
    kept = all(max(x.raw) <= x.threshold for x in sessions)
    return [
        "- The raw history a run starts with "
        + ("never passed" if kept else "passed")
        + " the threshold; the observer's chunks were",
        "  buffered while earlier turns ran and activated when a turn crossed the threshold,",
    ]


NOTES = [
    "- A request is bounded by the raw history, the observation block and the run's own tool",
    "  calls (the runtime saves a run's messages, and so can observe them, when it ends).",
    "- The reflector compares its threshold with the observations' stored token counts, which",
    "  are scaled to the output tokens the observer model reported (here pydantic-ai's estimate",
    "  for a scripted model, well under runyard's); the block column is runyard's estimate of",
    "  the rendered block, markers and times included. The scripted reflector keeps every user",
    "  request and drops the tool lines, so the block keeps growing slowly between reflections.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument(
        "--latency",
        action="append",
        metavar="MODEL_MS:OBSERVER_MS",
        help="one session per value (default 0:0): how long each model / observer call takes",
    )
    parser.add_argument("--reflector-tokens", type=int, default=DEFAULT_REFLECTOR)
    parser.add_argument("--write-docs", action="store_true", help="update docs/benchmarks.md")
    json_option(parser)
    args = parser.parse_args()
    sessions = []
    for latency in args.latency or ["0:0"]:
        model_ms, _, observer_ms = latency.partition(":")
        sessions.append(
            asyncio.run(
                run(
                    args.turns,
                    args.steps,
                    float(model_ms),
                    float(observer_ms or 0),
                    args.reflector_tokens,
                )
            )
        )
        print(report(sessions[-1:]), flush=True)
    section = report(sessions)
    print(section)
    write_rows(args.json, [summary(session) for session in sessions])
    if args.write_docs:
        write_section(START, END, section)


if __name__ == "__main__":
    main()
