"""``issue_api_key``: make a key for a tenant's user, store its hash, hand the key out once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import get_args

from runyard.ids import is_identity, now_ms
from runyard.service.api_keys.errors import InvalidKeyRequest
from runyard.service.api_keys.key_format import hash_api_key, key_id_of, new_api_key
from runyard.storage import ApiKey, ApiKeyRole, ApiKeys

__all__ = ["MAX_NAME_LENGTH", "IssuedApiKey", "issue_api_key"]

MAX_NAME_LENGTH = 128
_ROLES: dict[str, ApiKeyRole] = {role: role for role in get_args(ApiKeyRole)}
_MILLISECOND = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class IssuedApiKey:
    """A key just made: ``token`` is the key itself, which nothing keeps — show it once."""

    token: str = field(repr=False)  # so a log line or a traceback's locals cannot show it
    key: ApiKey


async def issue_api_key(
    store: ApiKeys,
    *,
    tenant_id: str,
    user_id: str,
    role: str = "member",
    name: str | None = None,
    expires_in: timedelta | None = None,
    now: int | None = None,
) -> IssuedApiKey:
    """A new key acting for ``user_id`` in ``tenant_id`` with ``role``, valid until ``expires_in``
    from ``now`` (default: this moment; None: until revoked).

    Raises ``InvalidKeyRequest`` naming the field (``tenant``, ``user``, ``role``, ``name``,
    ``expires``) before anything is stored.
    """
    checked_role = _role(role)
    _check(tenant_id, user_id, name, expires_in)
    created_at = now_ms() if now is None else now
    token = new_api_key()
    key_id = key_id_of(token)
    assert key_id is not None
    key = ApiKey(
        key_id=key_id,
        secret_hash=hash_api_key(token),
        tenant_id=tenant_id,
        user_id=user_id,
        role=checked_role,
        name=name,
        created_at=created_at,
        expires_at=None if expires_in is None else created_at + expires_in // _MILLISECOND,
        revoked_at=None,
        last_used_at=None,
    )
    await store.create_api_key(key)
    return IssuedApiKey(token, key)


def _role(role: str) -> ApiKeyRole:
    if role in _ROLES:
        return _ROLES[role]
    raise InvalidKeyRequest("role", f"{role!r} is not one of {', '.join(_ROLES)}")


def _check(tenant_id: str, user_id: str, name: str | None, expires_in: timedelta | None) -> None:
    for field_name, value in (("tenant", tenant_id), ("user", user_id)):
        if not is_identity(value):
            raise InvalidKeyRequest(field_name, f"{value!r} must be 1-128 of A-Z a-z 0-9 . _ @ -")
    if name is not None and not (0 < len(name) <= MAX_NAME_LENGTH and name.isprintable()):
        raise InvalidKeyRequest(
            "name", f"must be 1-{MAX_NAME_LENGTH} printable characters, without line breaks"
        )
    if expires_in is not None and expires_in <= timedelta(0):
        raise InvalidKeyRequest("expires", "must be a duration longer than 0")
