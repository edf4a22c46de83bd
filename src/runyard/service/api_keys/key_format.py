"""The shape of an API key: ``ryk_`` + a 12-character key id + 43 characters of secret, base62.

The secret is 32 bytes from ``secrets`` (256 bits), written as exactly 43 base62 digits
(62**43 > 2**256), so every key is 59 characters. The key id — ``ryk_`` and the next 12 characters,
71 random bits of its own — is public: it is the start of the key, what ``runyard keys list``
shows, and the primary key a verification reads, so checking a key is one indexed read.
"""

from __future__ import annotations

import hashlib
import secrets
import string

__all__ = ["API_KEY_LENGTH", "API_KEY_PREFIX", "hash_api_key", "key_id_of", "new_api_key"]

API_KEY_PREFIX = "ryk_"
_ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
_DIGITS = frozenset(_ALPHABET)
_ID_CHARS = 12
_SECRET_BYTES = 32
_SECRET_CHARS = 43
_KEY_ID_LENGTH = len(API_KEY_PREFIX) + _ID_CHARS
API_KEY_LENGTH = _KEY_ID_LENGTH + _SECRET_CHARS


def new_api_key() -> str:
    """A fresh key; its id is ``key_id_of(key)``."""
    key_id = "".join(secrets.choice(_ALPHABET) for _ in range(_ID_CHARS))
    return API_KEY_PREFIX + key_id + _base62(secrets.token_bytes(_SECRET_BYTES), _SECRET_CHARS)


def key_id_of(token: str) -> str | None:
    """The key id a well-formed key starts with; None for anything that cannot be a key."""
    body = token.removeprefix(API_KEY_PREFIX)
    if len(token) != API_KEY_LENGTH or body == token or not _DIGITS.issuperset(body):
        return None
    return token[:_KEY_ID_LENGTH]


def hash_api_key(token: str) -> str:
    """What is stored of a key: the hex SHA-256 of the whole key.

    A password needs a slow, salted hash because it has few bits: whoever steals the table can
    try every likely one. A key has 256 random bits, which no attacker can enumerate at any hash
    speed, so a fast hash protects it as well and keeps verification to microseconds on every
    request; a salt adds nothing when no two keys are alike, and a server-side pepper would be one
    more secret every replica must share.
    """
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _base62(data: bytes, width: int) -> str:
    number = int.from_bytes(data, "big")
    digits = []
    for _ in range(width):
        number, digit = divmod(number, len(_ALPHABET))
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits))
