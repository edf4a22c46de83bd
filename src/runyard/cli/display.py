"""How the CLI names the things it connects to, without leaking a password to the terminal."""

from __future__ import annotations

import ipaddress
from pathlib import Path

__all__ = ["describe_database", "http_url", "is_loopback", "redact_url"]


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***``."""
    # SQLAlchemy is imported when a URL is shown: `runyard --help` and `runyard chat` need none.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def http_url(host: str, port: int) -> str:
    """``http://host:port``, with an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def is_loopback(host: str) -> bool:
    """True when a server bound to ``host`` is reachable from this machine only: ``localhost``
    or a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # any other name may resolve to anything
        return False


def describe_database(url: str) -> str:
    """A line naming the database: its backend and, for SQLite, the absolute file path."""
    from runyard.storage import InvalidDatabaseURL, parse_database_url

    try:
        target = parse_database_url(url)
    except InvalidDatabaseURL:
        return redact_url(url)
    if target.backend == "memory":
        return "in memory (nothing is kept after the process stops)"
    if target.sqlite_path is not None:
        return f"SQLite file {Path(target.sqlite_path).resolve()}"
    return f"PostgreSQL {redact_url(url)}"
