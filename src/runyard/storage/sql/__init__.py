"""The SQL backends (SQLite and PostgreSQL) of the ``Store`` protocol."""

from runyard.storage.sql.store import SqlStore

__all__ = ["SqlStore"]
