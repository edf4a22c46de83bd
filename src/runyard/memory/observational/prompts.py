"""Every prompt of observational memory, in one place: the observer, the reflector, the block.

The line format the models write is the one ``log_format`` parses and renders:
``Date: YYYY-MM-DD`` lines, then ``* MARKER (HH:MM) text`` bullets, children indented by two
spaces. Change one side and the other together.
"""

from __future__ import annotations

__all__ = [
    "BLOCK_CLOSE",
    "BLOCK_OPEN",
    "OBSERVER_INSTRUCTIONS",
    "REFLECTOR_INSTRUCTIONS",
    "observer_input",
    "reflector_input",
]

_FORMAT = """\
Write one observation per line as `* MARKER (HH:MM) text`, where MARKER is one of:
- CRITICAL: who the user is, the project, hard constraints, explicit decisions and commitments;
- IMPORTANT: preferences, work in progress, findings that later steps build on;
- INFO: small or easily recovered details (the first to be dropped later);
- COMPLETION: something finished or resolved (best as a child of what it completes).
Indent a line by two spaces to make it a child of the line above it; group repeated actions
of the same kind under one parent. A line `Date: YYYY-MM-DD` sets the date of the lines below it.
"""

OBSERVER_INSTRUCTIONS = f"""\
You compress an agent's conversation into observations: a dense, dated record that replaces
the raw messages in the agent's context. Read the new part of the transcript and write only
what is durable and new compared with the existing observations.

{_FORMAT}
Rules:
- The user's own words are authoritative; an assistant's claims are not evidence, tool calls
  and their results are.
- Tell statements apart from questions and intentions; keep uncertainty ("the user suspects").
- When something changes, say what it replaces.
- Keep identifiers, names, numbers, paths and error messages verbatim.
- Summarise large tool results by what mattered (ids created, counts, errors, the decision they
  led to), never copy them.
- Skip small talk and restatements. Reply with the observation lines only.
"""

REFLECTOR_INSTRUCTIONS = f"""\
You condense an agent's observation log so it stays useful and within its token budget.
Rewrite the whole log; what you return replaces it.

{_FORMAT}
Rules:
- Keep every CRITICAL observation (merge duplicates about the same thing).
- Merge IMPORTANT observations that repeat or supersede each other; drop them only when a later
  one makes them obsolete.
- Drop INFO observations freely, oldest first; a COMPLETION goes with its parent.
- Never merge observations about different topics or invent causes.
- Keep the dates and times of what you keep, in order, with `Date:` lines.
Reply with the condensed log only.
"""

BLOCK_OPEN = """\
<observations>
Your memory of the earlier part of this conversation, recorded as it went on. Older entries
may have been condensed. Markers: CRITICAL = must keep, IMPORTANT = continuity,
INFO = detail, COMPLETION = done.
"""

BLOCK_CLOSE = "</observations>"


def observer_input(now: str, tail: str, transcript: str) -> str:
    """The observer's user message: the log's latest lines and the transcript to observe."""
    return (
        f"Current time: {now}\n\n"
        f"Latest existing observations:\n{tail or '(none yet)'}\n\n"
        f"New transcript to observe:\n{transcript}"
    )


def reflector_input(now: str, log: str, tokens: int, budget: int) -> str:
    """The reflector's user message: the whole log, its size and the budget to get under."""
    return (
        f"Current time: {now}\n"
        f"The log is about {tokens} tokens; bring it well under {budget} tokens.\n\n"
        f"Observation log:\n{log}"
    )
