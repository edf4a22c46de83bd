"""A delegated sub-agent's one message: the briefing, the conversation's context, past failures.

Sub-agents are stateless, so everything they know comes from here (memory seed, "Sub-agent
memory"): the orchestrator's ``briefing``, the ``conversationContext`` it chose to pass on, and
the errors of earlier failed attempts at the same task (``IterationLog``).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["CONTEXT_HEADING", "FAILURES_HEADING", "compose_briefing"]

CONTEXT_HEADING = "## Conversation context"
FAILURES_HEADING = "## Earlier attempts at this task failed"


def compose_briefing(
    briefing: str, conversation_context: str | None, failures: Sequence[str]
) -> str:
    """The sub-agent's message: ``briefing``, then each part that has something to say."""
    parts = [briefing]
    if conversation_context and conversation_context.strip():
        parts.append(f"{CONTEXT_HEADING}\n{conversation_context.strip()}")
    if failures:
        listed = "\n".join(f"{n}. {error}" for n, error in enumerate(failures, 1))
        parts.append(f"{FAILURES_HEADING}\n{listed}\nAvoid what made them fail.")
    return "\n\n".join(parts)
