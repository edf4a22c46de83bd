"""``OutputBudget``: the output tokens a run may spend over all its model calls (``max_output_tokens``).

The run's own usage counts (every segment, from the checkpoint on a resume); a sub-agent's
calls count against the sub-agent's own limits. Each model call is asked for no more than what
is left (the ``max_tokens`` setting), so a provider that honours it never overshoots. The run
stops with ``OutputTokensExceededError``:

- after a call, when the run has spent more than the limit (a model that ignores ``max_tokens``),
  or exactly the limit on a call cut short for length (the budget, not the answer, ended it);
- before a call, when nothing is left for it.

A final answer that fits the budget exactly completes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runyard.errors import OutputTokensExceededError
from runyard.models import ModelTurn, Usage

__all__ = ["OutputBudget"]


class OutputBudget:
    """The run's output-token limit (None: unlimited, and the model settings pass unchanged)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit

    def settings(self, base: Mapping[str, Any] | None, used: Usage) -> Mapping[str, Any] | None:
        """The model settings of the next call: ``max_tokens`` capped at what is left.

        Raises ``OutputTokensExceededError`` when nothing is left."""
        if self.limit is None:
            return base
        left = self.limit - used.output_tokens
        if left <= 0:
            raise OutputTokensExceededError(self.limit, used.output_tokens)
        asked = (base or {}).get("max_tokens")
        return {**(base or {}), "max_tokens": left if asked is None else min(asked, left)}

    def check(self, turn: ModelTurn, used: Usage) -> None:
        """After a call: ``OutputTokensExceededError`` when it spent the run past its limit."""
        if self.limit is None:
            return
        spent = used.output_tokens
        if spent > self.limit or (spent == self.limit and turn.finish_reason == "length"):
            raise OutputTokensExceededError(self.limit, spent)
