"""Typed settings read from ``RUNYARD_*`` environment variables; imports nothing of runyard."""

from runyard.config.settings import Settings, get_settings

__all__ = ["Settings", "get_settings"]
