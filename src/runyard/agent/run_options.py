"""The options a run segment takes: ``ResumeOptions`` for every segment, ``RunOptions`` for a
fresh run (``Agent.generate(..., **options)``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, TypedDict

from runyard.models import FileReader
from runyard.runtime import FileKeeper, RunJournal
from runyard.telemetry import Telemetry

__all__ = ["ResumeOptions", "RunOptions"]


class ResumeOptions(TypedDict, total=False):
    """Options of every run segment, a fresh run or a resume."""

    abort_signal: asyncio.Event | None
    """Set it to abort the run, as ``agent.abort()`` does."""
    deps: Mapping[str, Any] | None
    """Handed to tools as ``ToolContext.deps`` (shared clients, never read from the environment)."""
    telemetry: Telemetry | None
    """Where this run reports its spans instead of the agent's telemetry (a sub-agent's run gets
    its caller's tool span: ``ToolContext.telemetry``)."""
    journal: RunJournal | None
    """Where the run makes every step durable (``runtime.journal``), so ``recover`` can carry it
    on after its process died; None: only suspensions are kept (in ``checkpoints``)."""
    files: FileReader | None
    """Reads the stored files the run's messages name by ``file_id`` (the caller's own), just
    before each model call; None: a message naming one fails the run."""
    produced_files: FileKeeper | None
    """Where the large images and files the model and tools produce are kept (history and
    clients then get them by ``file_id``) before anything sees them; None: they stay inline."""


class RunOptions(ResumeOptions, total=False):
    """Options of a fresh run."""

    thread_id: str | None
    resource_id: str | None
    """The user the thread belongs to; required with ``thread_id``."""
    tenant_id: str
    max_iterations: int | None
    run_id: str | None
    """Use this id instead of a fresh one (a service that announced the id already)."""
