"""``AgentId``: the path parameter naming the agent a face runs, as the catalog names it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from runyard.registry import SPEC_ID_PATTERN

__all__ = ["AgentId"]

AgentId = Annotated[
    str,
    Path(
        pattern=SPEC_ID_PATTERN,
        description="The agent, by its catalog id (`assistant` without a catalog); 404 "
        "`agent_not_found` when the caller's tenant has none of that id.",
        examples=["assistant"],
    ),
]
