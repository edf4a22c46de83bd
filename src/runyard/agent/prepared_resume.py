"""``PreparedResume``: a resume checked against its run's checkpoint, ready to run.

Preparing loads the checkpoint once, finds the waiting call and validates the data against the
call's resume schema; running it reuses that state. A caller that must check the data before it
commits to the resume (the service stores the answer in between) needs no second load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runyard.runtime import AgentState

__all__ = ["PreparedResume"]


@dataclass(frozen=True, slots=True)
class PreparedResume:
    """What ``Agent.prepare_resume`` found: the run's ``state`` as its checkpoint kept it, the
    waiting call and ``data`` as its resume validator returned it."""

    run_id: str
    tool_call_id: str
    data: Any
    state: AgentState
