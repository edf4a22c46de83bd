"""Runs the service race holds active: a fake model waits here until the benchmark lets it go.

A run whose user message is ``hold <token>`` waits, on its first model call, until a file named
``<token>`` appears in the folder ``$RACE_RELEASE_DIR``. While they wait, the number of runs held
for the token is written to ``<token>.held`` in that folder, so the benchmark knows when all of
them are inside the model. One watcher task per token (polling every 20 ms) serves every run
held for it: N held runs cost N waiting coroutines, not N pollers. Files are touched from a
worker thread, never from the event loop. Standard library only: runyard's server and
LangGraph's each import it from their own environment.

While a token's runs are held, the benchmark may ask for the server's Python heap by creating
``<token>.measure``: the watcher collects garbage, then writes the bytes ``tracemalloc`` traces
(the server runs with ``PYTHONTRACEMALLOC=1``) to ``<token>.heap``, or ``untraced``. Counting
live allocations, not resident memory, is what sees a held run's few KiB: a heap that kept free
room from its warm-up grows no page for them. With ``$RACE_HEAP_SNAPSHOTS`` naming a folder,
each answer also dumps a ``tracemalloc`` snapshot there, ``<token>-<n>.snapshot`` (n counts
the token's answers), for ``held_run_heap.py`` to tell where the heap went.
"""

from __future__ import annotations

import asyncio
import gc
import os
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "HEAP",
    "MEASURE",
    "PREFIX",
    "RELEASE_DIR",
    "SNAPSHOTS",
    "UNTRACED",
    "hold",
    "held_token",
]

PREFIX = "hold "
RELEASE_DIR = "RACE_RELEASE_DIR"
SNAPSHOTS = "RACE_HEAP_SNAPSHOTS"
MEASURE, HEAP = ".measure", ".heap"  # suffixes of the request for the heap, and of its answer
UNTRACED = "untraced"
_POLL_SECONDS = 0.02


@dataclass
class _Token:
    released: asyncio.Event = field(default_factory=asyncio.Event)
    held: int = 0
    measured: int = 0
    watcher: asyncio.Task[None] | None = None


_tokens: dict[str, _Token] = {}


def held_token(prompt: str) -> str | None:
    """The token a ``hold <token>`` prompt names; None for any other prompt."""
    return prompt[len(PREFIX) :].strip() if prompt.startswith(PREFIX) else None


async def hold(token: str) -> None:
    """Wait until the benchmark releases ``token``."""
    entry = _tokens.get(token)
    if entry is None:
        entry = _tokens[token] = _Token()
        entry.watcher = asyncio.create_task(_watch(token, entry))
    entry.held += 1
    await entry.released.wait()


async def _watch(token: str, entry: _Token) -> None:
    folder = Path(os.environ[RELEASE_DIR])
    reported = -1
    while True:
        released, asked = await asyncio.to_thread(_look, folder, token)
        if released:
            break
        if entry.held != reported:
            reported = entry.held
            await asyncio.to_thread(_write, folder / f"{token}.held", str(reported))
        if asked:
            entry.measured += 1
            heap, snapshot = _heap()
            if snapshot is not None and (dumps := os.environ.get(SNAPSHOTS)):
                name = f"{token}-{entry.measured}.snapshot"
                await asyncio.to_thread(snapshot.dump, str(Path(dumps) / name))
            await asyncio.to_thread(_write, folder / f"{token}{HEAP}", heap)
        await asyncio.sleep(_POLL_SECONDS)  # a file in another process's hands: polled
    entry.released.set()


def _look(folder: Path, token: str) -> tuple[bool, bool]:
    """Whether ``token`` is released, and whether its heap is asked for (the ask is taken)."""
    asked = folder / f"{token}{MEASURE}"
    try:
        asked.unlink()
    except FileNotFoundError:
        return (folder / token).exists(), False
    return (folder / token).exists(), True


def _heap() -> tuple[str, tracemalloc.Snapshot | None]:
    """The traced heap's size (``UNTRACED`` when off), and a snapshot of it if one is wanted."""
    # On the loop, between two polls: no allocation of this server is half done meanwhile.
    if not tracemalloc.is_tracing():
        return UNTRACED, None
    gc.collect()
    size = tracemalloc.get_traced_memory()[0]  # before the snapshot, which allocates
    return str(size), tracemalloc.take_snapshot() if os.environ.get(SNAPSHOTS) else None


def _write(path: Path, text: str) -> None:
    # Written whole, then renamed: the benchmark never reads half a number.
    part = path.with_suffix(".part")
    part.write_text(text)
    part.replace(path)
