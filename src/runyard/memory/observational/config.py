"""``ObservationalConfig``: when the observer and the reflector run, and on which model."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic_ai.models import Model

from runyard.config import get_settings
from runyard.errors import ConfigurationError

__all__ = ["ObservationalConfig"]


def _observer_model() -> str | None:
    return get_settings().observer_model or None


def _observer_tokens() -> int:
    return get_settings().observer_message_tokens


def _reflector_tokens() -> int:
    return get_settings().reflector_observation_tokens


@dataclass(frozen=True, slots=True)
class ObservationalConfig:
    """Observational memory of a thread.

    - ``model``: the observer/reflector model (``RUNYARD_OBSERVER_MODEL``); None = the agent's.
    - ``observer_message_tokens``: the raw messages not yet observed may grow to about this many
      tokens (``RUNYARD_OBSERVER_MESSAGE_TOKENS``, 30 000).
    - ``reflector_observation_tokens``: past this, the observation log is condensed
      (``RUNYARD_REFLECTOR_OBSERVATION_TOKENS``, 40 000).
    - ``buffer_ratio``: async buffering. Each time this share of the threshold has arrived in
      messages not observed or buffered yet, the observer runs on them in the background and
      its result waits, ready, until the threshold is crossed (then it is activated at once).
    - ``block_ratio``: only when unobserved messages pass this multiple of the threshold after
      the buffer was activated (the background observer fell behind or failed) does a run wait
      for an observation first. 1.0: the raw block never starts a run above the threshold.
    - ``retain_ratio``: the newest messages worth this share of the threshold stay raw after an
      observation, so the model always sees the latest exchange verbatim.
    """

    model: str | Model | None = field(default_factory=_observer_model)
    observer_message_tokens: int = field(default_factory=_observer_tokens)
    reflector_observation_tokens: int = field(default_factory=_reflector_tokens)
    buffer_ratio: float = 0.2
    block_ratio: float = 1.0
    retain_ratio: float = 0.2

    def __post_init__(self) -> None:
        if self.observer_message_tokens < 1 or self.reflector_observation_tokens < 1:
            raise ConfigurationError("Observational memory thresholds must be positive")
        if not 0 < self.buffer_ratio <= 1:
            raise ConfigurationError("buffer_ratio must be in (0, 1]")
        if self.block_ratio < 1:
            raise ConfigurationError("block_ratio must be at least 1")
        if self.retain_ratio < 0 or self.retain_ratio + self.buffer_ratio > 1:
            # Beyond that, nothing would be buffered before the threshold is crossed.
            raise ConfigurationError("retain_ratio must be 0 or more, and at most 1 - buffer_ratio")

    @property
    def buffer_tokens(self) -> int:
        """New tokens (not observed, not buffered) that make the background observer run."""
        return int(self.observer_message_tokens * self.buffer_ratio)

    @property
    def block_tokens(self) -> int:
        """Unobserved tokens past which a run waits for an observation."""
        return int(self.observer_message_tokens * self.block_ratio)

    @property
    def retain_tokens(self) -> int:
        """Tokens of the newest messages an observation leaves raw."""
        return int(self.observer_message_tokens * self.retain_ratio)
