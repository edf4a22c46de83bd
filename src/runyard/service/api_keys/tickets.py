"""Tickets: what a browser shows instead of its API key where it cannot send a header — an
``EventSource`` opening one thread's event stream, an ``<img>`` or a link downloading one stored
file — for that one thing and for a minute.

A ticket is stateless, so every replica on the database accepts it and nothing is stored:
``ryt_`` + the key's 12-character id + ``_`` + its expiry (epoch seconds) + ``_`` + an
HMAC-SHA256 (its first 128 bits) over the key id, what the ticket opens and the expiry. What it
opens is a thread id (a stream) or ``file`` and a file id on their own lines (a download: no
thread id has a line break, so a ticket for one never opens the other). The HMAC's key is
derived from the stored hash of the API key, which only the database holds, so nobody can mint
one without the database, and revoking or expiring the key ends its tickets at once (verifying
reads the key's row, as ``verify_api_key`` does). A ticket is not single-use — that would need a
table of spent tickets —: within its minute, whoever holds the URL may open that one thing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass, field

from runyard.ids import now_ms
from runyard.service.api_keys.identity import KeyIdentity
from runyard.service.api_keys.key_format import API_KEY_PREFIX
from runyard.service.api_keys.verification import key_is_live
from runyard.storage import ApiKey, ApiKeys

__all__ = [
    "TICKET_PREFIX",
    "TICKET_SECONDS",
    "Ticket",
    "issue_file_ticket",
    "issue_stream_ticket",
    "verify_file_ticket",
    "verify_stream_ticket",
]

TICKET_PREFIX = "ryt_"
TICKET_SECONDS = 60
"""How long a ticket opens what it opens; a stream or download begun before then is not cut."""

_SHAPE = re.compile(
    r"ryt_(?P<key>[0-9A-Za-z]{12})_(?P<expires>[0-9]{10})_(?P<mac>[A-Za-z0-9_-]{22})"
)
_PURPOSE = b"runyard stream ticket v1"


@dataclass(frozen=True, slots=True)
class Ticket:
    """A ticket for one thread's event stream or one file; ``expires_at`` in epoch ms."""

    token: str = field(repr=False)
    expires_at: int


def issue_stream_ticket(key: ApiKey, thread_id: str, *, now: int | None = None) -> Ticket:
    """A ticket that opens ``thread_id``'s stream for ``key``'s user until a minute from ``now``
    (default: this moment)."""
    return _issue(key, thread_id, now)


async def verify_stream_ticket(
    store: ApiKeys, ticket: str, thread_id: str, *, now: int | None = None
) -> KeyIdentity | None:
    """Whom ``ticket`` acts for on ``thread_id``'s stream; None when it is malformed, for another
    thread or key, expired, or its key is unknown, revoked or expired."""
    return await _verify(store, ticket, thread_id, now)


def issue_file_ticket(key: ApiKey, file_id: str, *, now: int | None = None) -> Ticket:
    """A ticket that downloads the file ``file_id`` as ``key``'s user until a minute from
    ``now`` (the caller checks first that the file is the user's)."""
    return _issue(key, _file_subject(file_id), now)


async def verify_file_ticket(
    store: ApiKeys, ticket: str, file_id: str, *, now: int | None = None
) -> KeyIdentity | None:
    """Whom ``ticket`` downloads ``file_id`` as; None as ``verify_stream_ticket`` says, or when
    it is for another file or a stream."""
    return await _verify(store, ticket, _file_subject(file_id), now)


def _file_subject(file_id: str) -> str:
    return f"file\n{file_id}"


def _issue(key: ApiKey, subject: str, now: int | None) -> Ticket:
    at = now_ms() if now is None else now
    expires = at // 1000 + TICKET_SECONDS
    key_chars = key.key_id.removeprefix(API_KEY_PREFIX)
    mac = _mac(key.secret_hash, key_chars, subject, expires)
    return Ticket(f"{TICKET_PREFIX}{key_chars}_{expires}_{mac}", expires * 1000)


async def _verify(store: ApiKeys, ticket: str, subject: str, now: int | None) -> KeyIdentity | None:
    match = _SHAPE.fullmatch(ticket)
    if match is None:
        return None
    at = now_ms() if now is None else now
    expires = int(match["expires"])
    if at >= expires * 1000:
        return None
    key = await store.get_api_key(API_KEY_PREFIX + match["key"])
    if key is None or not key_is_live(key, at):
        return None
    expected = _mac(key.secret_hash, match["key"], subject, expires)
    if not hmac.compare_digest(expected, match["mac"]):
        return None
    return KeyIdentity(key.tenant_id, key.user_id, key.role, key.key_id)


def _mac(secret_hash: str, key_chars: str, subject: str, expires: int) -> str:
    signing_key = hmac.new(secret_hash.encode(), _PURPOSE, hashlib.sha256).digest()
    message = f"{key_chars}\n{subject}\n{expires}".encode()
    # 128 bits of the MAC are plenty (RFC 2104 allows truncation to half), and keep the ticket
    # shorter than the longest shape the redactor's hold-back waits for.
    digest = hmac.new(signing_key, message, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
