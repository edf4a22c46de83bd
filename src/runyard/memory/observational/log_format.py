"""The observation log as text: parsing what the observer and reflector write, and rendering it.

Rendering walks the log in stored order, so appending observations only ever appends text to
the block: the system prompt's prefix stays byte-identical between reflections and provider
prompt caches keep hitting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from runyard.memory.observational.prompts import BLOCK_CLOSE, BLOCK_OPEN
from runyard.storage import Observation

__all__ = ["MARKERS", "ParsedLine", "parse_log", "render_block", "render_lines", "stamp"]

MARKERS = ("critical", "important", "info", "completion")

_LINE = re.compile(
    r"^(?P<indent>\s*)[*-]\s+(?P<marker>CRITICAL|IMPORTANT|INFO|COMPLETION)\b:?"
    r"(?:\s+\((?P<time>\d{1,2}:\d{2})\))?\s*(?P<text>.+?)\s*$",
    re.IGNORECASE,
)
_DATE = re.compile(r"^\s*Date:\s*(?P<date>\d{4}-\d{2}-\d{2})\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """One observation line a model wrote; ``child`` lines belong to the last root line."""

    marker: str
    text: str
    child: bool
    date: str
    time: str


def stamp(ms: int) -> tuple[str, str]:
    """The UTC date (``YYYY-MM-DD``) and time (``HH:MM``) of a millisecond timestamp."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d"), moment.strftime("%H:%M")


def parse_log(text: str, default_ms: int) -> list[ParsedLine]:
    """The observation lines of ``text``; lines in any other shape are ignored.

    Lines without a date or time take them from ``default_ms``. An indented line before any
    root line becomes a root, so nothing the model wrote in the right shape is lost.
    """
    date, time = stamp(default_ms)
    lines: list[ParsedLine] = []
    seen_root = False
    for raw in text.splitlines():
        if dated := _DATE.match(raw):
            date = dated["date"]
            continue
        match = _LINE.match(raw)
        if match is None:
            continue
        child = bool(match["indent"]) and seen_root
        seen_root = seen_root or not child
        clock = match["time"] or time
        lines.append(ParsedLine(match["marker"].lower(), match["text"], child, date, clock))
    return lines


def render_lines(observations: Sequence[Observation]) -> str:
    """The log in the models' line format, with a ``Date:`` line whenever the date changes."""
    out: list[str] = []
    date = None
    for obs in observations:
        obs_date, obs_time = _when(obs)
        if obs_date != date:
            out.append(f"Date: {obs_date}")
            date = obs_date
        indent = "  " if obs.parent_id else ""
        out.append(f"{indent}* {obs.marker.upper()} ({obs_time}) {obs.text}")
    return "\n".join(out)


def render_block(observations: Sequence[Observation]) -> str | None:
    """The system-prompt block for the log; None when the log is empty."""
    if not observations:
        return None
    return f"{BLOCK_OPEN}\n{render_lines(observations)}\n{BLOCK_CLOSE}"


def _when(obs: Observation) -> tuple[str, str]:
    date, time = stamp(obs.created_at)
    return str(obs.metadata.get("date", date)), str(obs.metadata.get("time", time))
