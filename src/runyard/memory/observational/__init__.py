"""Observational memory: an observer compresses old messages of a thread into dated
observations, a reflector condenses them, and the model sees [observations][recent raw messages].

All prompts are in ``prompts``. Token counts are offline estimates (``runyard.models``), scaled
to the provider's count where a response reports one.
"""

from runyard.memory.observational.config import ObservationalConfig
from runyard.memory.observational.engine import ObservationalMemory
from runyard.memory.observational.log_format import parse_log, render_block, render_lines
from runyard.memory.observational.observation_log import LogSnapshot, ObservationLog, count_tokens
from runyard.memory.observational.transcript import compact_value, render_transcript

__all__ = [
    "LogSnapshot",
    "ObservationLog",
    "ObservationalConfig",
    "ObservationalMemory",
    "compact_value",
    "count_tokens",
    "parse_log",
    "render_block",
    "render_lines",
    "render_transcript",
]
