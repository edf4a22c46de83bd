"""Typed settings read from ``RUNYARD_*`` environment variables; imports nothing of runyard."""

from runyard.config.settings import AuthMode, Role, Settings, get_settings

__all__ = ["AuthMode", "Role", "Settings", "get_settings"]
