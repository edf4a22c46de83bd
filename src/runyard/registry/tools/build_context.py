"""``BuildContext``: the catalog entry a tool factory builds from, and for whom.

It is data only (the spec's parameters and names), so a build is a function of it and of the
shared dependencies: the same spec builds the same tools for every run that uses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BuildContext"]


@dataclass(frozen=True, slots=True)
class BuildContext:
    """One tool spec as a factory sees it.

    ``name`` is the catalog's name for this tool (what the model calls a single tool, and every
    tool's ``source_node_name``); ``parameters`` are the spec's parameters, not yet validated
    (the factory validates them); ``tenant`` and ``agent_id`` say whom the tools are built for
    (None: every tenant, no particular agent); ``grant`` limits a toolkit to the named tools
    (None: all of them); ``sub_agents`` are the catalog agents that agent may delegate to or
    call (empty: it names none).
    """

    name: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    tenant: str | None = None
    agent_id: str | None = None
    grant: Sequence[str] | None = None
    sub_agents: Sequence[str] = ()
