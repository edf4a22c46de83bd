"""``verify_api_key``: the identity a presented key acts for, or None.

Nothing is cached: every call reads the key's row (one read by primary key), so a revocation or
an expiry takes effect on the very next request, on every replica that shares the database.
"""

from __future__ import annotations

import hmac

from runyard.ids import now_ms
from runyard.service.api_keys.identity import KeyIdentity
from runyard.service.api_keys.key_format import hash_api_key, key_id_of
from runyard.storage import ApiKey, ApiKeys

__all__ = ["LAST_USED_RESOLUTION_MS", "key_is_live", "verify_api_key"]

LAST_USED_RESOLUTION_MS = 60_000
"""A key's ``last_used_at`` is written at most this often: a write per request would cost more
than the read, and "last used" only needs to say which keys are still in use."""


async def verify_api_key(
    store: ApiKeys, token: str, *, now: int | None = None
) -> KeyIdentity | None:
    """Whom ``token`` acts for; None when it is malformed, unknown, not the key stored under its
    id, revoked, or expired at ``now`` (default: this moment)."""
    key_id = key_id_of(token)
    if key_id is None:
        return None
    presented = hash_api_key(token)
    key = await store.get_api_key(key_id)
    # compare_digest: the time taken says nothing of how much of the stored hash matched.
    if key is None or not hmac.compare_digest(presented, key.secret_hash):
        return None
    at = now_ms() if now is None else now
    if not key_is_live(key, at):
        return None
    if key.last_used_at is None or at - key.last_used_at >= LAST_USED_RESOLUTION_MS:
        await store.mark_api_key_used(key_id, at=at)
    return KeyIdentity(key.tenant_id, key.user_id, key.role, key.key_id)


def key_is_live(key: ApiKey, at: int) -> bool:
    """Neither revoked nor expired at ``at`` (epoch ms)."""
    return key.revoked_at is None and (key.expires_at is None or at < key.expires_at)
