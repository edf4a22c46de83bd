"""The one exception family this package raises on its own: mistakes in how it is configured."""

from __future__ import annotations

__all__ = ["ConfigurationError"]


class ConfigurationError(Exception):
    """A developer mistake: an unknown model string, a missing extra, a missing API key or base URL.

    The message always says what to do about it (which extra to install, which env var to set).
    """
