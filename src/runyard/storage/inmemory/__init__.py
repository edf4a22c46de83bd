"""The in-memory backend of the ``Store`` protocol."""

from runyard.storage.inmemory.store import InMemoryStore

__all__ = ["InMemoryStore"]
