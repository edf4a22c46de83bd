"""The ids in the LangGraph face's paths, and the path convertors that keep them off the literal
segments LangGraph Server's API puts at the same place (``/threads/search`` is not the thread
``search``, ``/runs/stream`` not the run ``stream``).

Without them, ``GET /langgraph/threads/search`` would be routed to ``threads.get`` of a thread
named ``search``, and a 405 would advertise methods the document does not give that path. A
thread or assistant named ``search`` or ``count``, or a run named ``stream`` or ``wait``, is
therefore not reachable here (LangGraph's own ids are UUIDs; runyard's run ids ``run_…``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from starlette.convertors import Convertor, register_url_convertor

from runyard.ids import THREAD_ID_PATTERN

__all__ = [
    "ASSISTANT_ID_PATTERN",
    "CHECKPOINT_ID_PATTERN",
    "RUN_ID_PATTERN",
    "AssistantId",
    "CheckpointId",
    "RunId",
    "ThreadId",
]

ASSISTANT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(@[0-9a-f]{64})?$"
"""An agent's catalog id, or ``agent@<version>`` (a 64-hex content hash)."""
RUN_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
"""A runyard run id (``run_…``)."""
CHECKPOINT_ID_PATTERN = r"^[0-9]{1,18}$"
"""A checkpoint: a log position of the thread."""


class _Segment(Convertor[str]):
    """One path segment, taken as it is."""

    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


class _Name(_Segment):
    """An assistant or thread id: not ``search`` or ``count``."""

    regex = r"(?!(?:search|count)(?:/|$))[^/]+"


class _Run(_Segment):
    """A run id: not ``stream`` or ``wait``."""

    regex = r"(?!(?:stream|wait)(?:/|$))[^/]+"


class _Checkpoint(_Segment):
    """A checkpoint id: digits, so not ``checkpoint``."""

    regex = "[0-9]+"


register_url_convertor("langgraph_name", _Name())
register_url_convertor("langgraph_run", _Run())
register_url_convertor("langgraph_checkpoint", _Checkpoint())

AssistantId = Annotated[
    str,
    Path(
        pattern=ASSISTANT_ID_PATTERN,
        description="the agent's catalog id, or `agent@<version>`",
        examples=["assistant"],
    ),
]
"""In a path as ``{assistant_id:langgraph_name}``."""
ThreadId = Annotated[
    str,
    Path(
        pattern=THREAD_ID_PATTERN,
        description="the thread, as the client named it (per user, as on /v1)",
        examples=["t1"],
    ),
]
"""In a path as ``{thread_id:langgraph_name}``."""
RunId = Annotated[str, Path(pattern=RUN_ID_PATTERN, description="the run, as runyard named it")]
"""In a path as ``{run_id:langgraph_run}``."""
CheckpointId = Annotated[
    str,
    Path(
        pattern=CHECKPOINT_ID_PATTERN, description="a `checkpoint_id`: a log position of the thread"
    ),
]
"""In a path as ``{checkpoint_id:langgraph_checkpoint}``."""
