"""Stream tickets: what a browser's ``EventSource``, which cannot send a header, shows instead of
its API key, for one thread's event stream and for a minute.

A ticket is stateless, so every replica on the database accepts it and nothing is stored:
``ryt_`` + the key's 12-character id + ``_`` + its expiry (epoch seconds) + ``_`` + an
HMAC-SHA256 (its first 128 bits) over the key id, the thread id and the expiry. The HMAC's key is derived from the
stored hash of the API key, which only the database holds, so nobody can mint one without the
database, and revoking or expiring the key ends its tickets at once (verifying reads the key's
row, as ``verify_api_key`` does). A ticket is not single-use — that would need a table of spent
tickets —: within its minute, whoever holds the URL may open that one thread's stream.
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
    "STREAM_TICKET_PREFIX",
    "STREAM_TICKET_SECONDS",
    "StreamTicket",
    "issue_stream_ticket",
    "verify_stream_ticket",
]

STREAM_TICKET_PREFIX = "ryt_"
STREAM_TICKET_SECONDS = 60
"""How long a ticket opens its stream; an open stream is not cut when it expires."""

_SHAPE = re.compile(
    r"ryt_(?P<key>[0-9A-Za-z]{12})_(?P<expires>[0-9]{10})_(?P<mac>[A-Za-z0-9_-]{22})"
)
_PURPOSE = b"runyard stream ticket v1"


@dataclass(frozen=True, slots=True)
class StreamTicket:
    """A ticket for one thread's event stream; ``expires_at`` in epoch ms."""

    token: str = field(repr=False)
    expires_at: int


def issue_stream_ticket(key: ApiKey, thread_id: str, *, now: int | None = None) -> StreamTicket:
    """A ticket that opens ``thread_id``'s stream for ``key``'s user until a minute from ``now``
    (default: this moment)."""
    at = now_ms() if now is None else now
    expires = at // 1000 + STREAM_TICKET_SECONDS
    key_chars = key.key_id.removeprefix(API_KEY_PREFIX)
    mac = _mac(key.secret_hash, key_chars, thread_id, expires)
    return StreamTicket(f"{STREAM_TICKET_PREFIX}{key_chars}_{expires}_{mac}", expires * 1000)


async def verify_stream_ticket(
    store: ApiKeys, ticket: str, thread_id: str, *, now: int | None = None
) -> KeyIdentity | None:
    """Whom ``ticket`` acts for on ``thread_id``'s stream; None when it is malformed, for another
    thread or key, expired, or its key is unknown, revoked or expired."""
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
    expected = _mac(key.secret_hash, match["key"], thread_id, expires)
    if not hmac.compare_digest(expected, match["mac"]):
        return None
    return KeyIdentity(key.tenant_id, key.user_id, key.role, key.key_id)


def _mac(secret_hash: str, key_chars: str, thread_id: str, expires: int) -> str:
    signing_key = hmac.new(secret_hash.encode(), _PURPOSE, hashlib.sha256).digest()
    message = f"{key_chars}\n{thread_id}\n{expires}".encode()
    # 128 bits of the MAC are plenty (RFC 2104 allows truncation to half), and keep the ticket
    # shorter than the longest shape the redactor's hold-back waits for.
    digest = hmac.new(signing_key, message, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
