"""The two turns every zero-latency fake model plays: call ``add(1, 2)``, then answer.

Streamed, the tool call is one delta and the answer the same word deltas on every side, so every
system gets exactly the same work from its model. Standard library only: the fakes of each stack
(``_fake_models`` for pydantic-ai, ``_fake_chat_model`` for LangChain) import it from their own
environment.
"""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["ANSWER", "ANSWER_DELTAS", "ARGS", "TOOL", "call_id"]

TOOL = "add"
ARGS: dict[str, Any] = {"a": 1, "b": 2}
ANSWER = "The sum is 3."
ANSWER_DELTAS = ("The ", "sum ", "is ", "3.")
_ids = itertools.count()


def call_id() -> str:
    """A fresh tool-call id, as a provider would send."""
    return f"call_{next(_ids)}"
