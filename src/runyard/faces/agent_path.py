"""``AgentId``: the path parameter naming the agent a face runs, as the catalog names it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

__all__ = ["AgentId"]

AgentId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        description="The agent, by its catalog id (`assistant` without a catalog); 404 "
        "`agent_not_found` when the caller's tenant has none of that id.",
        examples=["assistant"],
    ),
]
