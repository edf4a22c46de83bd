"""A graph's LangGraph checkpoints inside runyard's run state.

A run segment gives its graph a fresh ``InMemorySaver``; at each super-step that leaves tool
calls to run and at a suspension the latest checkpoint of every namespace (the graph's and its subgraphs')
with its pending writes is exported into the run's ``AgentState`` (``graph``), which runyard's
own checkpoint store and journal keep durable, fenced by the run's lease like every other step.
A later segment — a resume from an answer, or another process taking the run over — imports it
into its own saver and carries the graph on from there. The checkpoint is LangGraph's own
serialisation (``JsonPlusSerializer``), base64 in JSON.
"""

from __future__ import annotations

import base64
from collections import defaultdict
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = ["export_checkpoints", "import_checkpoints"]


def export_checkpoints(saver: InMemorySaver, thread_id: str) -> list[dict[str, Any]]:
    """The newest checkpoint of each namespace of ``thread_id``, with its pending writes."""
    exported = []
    serde = saver.serde
    for namespace in saver.storage.get(thread_id, {}):
        config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}
        saved = saver.get_tuple(config)
        if saved is None:
            continue
        exported.append(
            {
                "ns": namespace,
                "checkpoint": _dump(serde, saved.checkpoint),
                "metadata": _dump(serde, saved.metadata),
                "writes": [
                    [task_id, channel, _dump(serde, value)]
                    for task_id, channel, value in saved.pending_writes or ()
                ],
            }
        )
    return exported


def import_checkpoints(
    saver: InMemorySaver, thread_id: str, exported: list[dict[str, Any]]
) -> None:
    """Put what ``export_checkpoints`` gave into ``saver``, under ``thread_id``."""
    serde = saver.serde
    for entry in exported:
        checkpoint = _load(serde, entry["checkpoint"])
        config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": entry["ns"]}}
        saved = saver.put(
            config, checkpoint, _load(serde, entry["metadata"]), checkpoint["channel_versions"]
        )
        by_task: defaultdict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in entry["writes"]:
            by_task[task_id].append((channel, _load(serde, value)))
        for task_id, writes in by_task.items():
            saver.put_writes(saved, writes, task_id)


def _dump(serde: SerializerProtocol, value: Any) -> list[str]:
    kind, data = serde.dumps_typed(value)
    return [kind, base64.b64encode(data).decode("ascii")]


def _load(serde: SerializerProtocol, dumped: list[str]) -> Any:
    kind, data = dumped
    return serde.loads_typed((kind, base64.b64decode(data)))
