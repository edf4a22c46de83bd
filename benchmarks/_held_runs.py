"""Runs the service race holds active: a fake model waits here until the benchmark lets it go.

A run whose user message is ``hold <token>`` waits, on its first model call, until a file named
``<token>`` appears in the folder ``$RACE_RELEASE_DIR``. While they wait, the number of runs held
for the token is written to ``<token>.held`` in that folder, so the benchmark knows when all of
them are inside the model. One watcher task per token (polling every 20 ms) serves every run
held for it: N held runs cost N waiting coroutines, not N pollers. Files are touched from a
worker thread, never from the event loop. Standard library only: runyard's server and
LangGraph's each import it from their own environment.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PREFIX", "RELEASE_DIR", "hold", "held_token"]

PREFIX = "hold "
RELEASE_DIR = "RACE_RELEASE_DIR"
_POLL_SECONDS = 0.02


@dataclass
class _Token:
    released: asyncio.Event = field(default_factory=asyncio.Event)
    held: int = 0
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
    while not await asyncio.to_thread((folder / token).exists):
        if entry.held != reported:
            reported = entry.held
            await asyncio.to_thread(_write, folder / f"{token}.held", str(reported))
        await asyncio.sleep(_POLL_SECONDS)  # a file in another process's hands: polled
    entry.released.set()


def _write(path: Path, text: str) -> None:
    # Written whole, then renamed: the benchmark never reads half a number.
    part = path.with_suffix(".part")
    part.write_text(text)
    part.replace(path)
