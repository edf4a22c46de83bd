"""``verify_api_key``: a good key says whom it acts for; everything else is None, and revocation
or expiry holds on the next verification, through any store handle on the same database."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from runyard.service import Owner
from runyard.service.api_keys import (
    LAST_USED_RESOLUTION_MS,
    IssuedApiKey,
    KeyIdentity,
    issue_api_key,
    new_api_key,
    verify_api_key,
)
from runyard.storage import Store, open_store

T0 = 1_700_000_000_000
HOUR_MS = 3_600_000


async def _issue(store: Store, **fields: Any) -> IssuedApiKey:
    return await issue_api_key(store, tenant_id="acme", user_id="alice", now=T0, **fields)


async def test_a_good_key_acts_for_its_tenant_user_and_role(store: Store) -> None:
    issued = await _issue(store, role="admin")
    identity = await verify_api_key(store, issued.token, now=T0 + 1)
    assert identity == KeyIdentity("acme", "alice", "admin", issued.key.key_id)
    assert identity.owner == Owner("acme", "alice")


@pytest.mark.parametrize(
    "token", ["", "ryk_", "Bearer ryk_x", "not a key", "ryk_" + "!" * 55, "ryk_" + "a" * 80]
)
async def test_a_malformed_key_is_refused(store: Store, token: str) -> None:
    await _issue(store)
    assert await verify_api_key(store, token, now=T0) is None


async def test_a_well_formed_key_that_was_never_issued_is_refused(store: Store) -> None:
    await _issue(store)
    assert await verify_api_key(store, new_api_key(), now=T0) is None


async def test_the_right_id_with_another_secret_is_refused(store: Store) -> None:
    issued = await _issue(store)
    other_secret = new_api_key()[16:]
    forged = issued.token[:16] + other_secret
    one_off = issued.token[:-1] + ("b" if issued.token[-1] == "a" else "a")
    assert await verify_api_key(store, forged, now=T0) is None
    assert await verify_api_key(store, one_off, now=T0) is None
    assert await verify_api_key(store, issued.token, now=T0) is not None


async def test_a_revoked_key_is_refused_from_the_next_verification_on(store: Store) -> None:
    issued, other = await _issue(store), await _issue(store)
    assert await verify_api_key(store, issued.token, now=T0) is not None
    await store.revoke_api_key(issued.key.key_id, at=T0 + 1)
    assert await verify_api_key(store, issued.token, now=T0 + 2) is None
    assert await verify_api_key(store, other.token, now=T0 + 2) is not None


async def test_a_key_works_until_its_expiry_and_not_from_then_on(store: Store) -> None:
    issued = await _issue(store, expires_in=timedelta(hours=1))
    assert await verify_api_key(store, issued.token, now=T0 + HOUR_MS - 1) is not None
    assert await verify_api_key(store, issued.token, now=T0 + HOUR_MS) is None
    assert await verify_api_key(store, issued.token, now=T0 + 2 * HOUR_MS) is None


async def test_last_use_is_written_at_most_once_a_minute(store: Store) -> None:
    issued = await _issue(store)
    key_id = issued.key.key_id

    async def last_used() -> int | None:
        key = await store.get_api_key(key_id)
        assert key is not None
        return key.last_used_at

    assert await last_used() is None
    await verify_api_key(store, issued.token, now=T0 + 10)
    assert await last_used() == T0 + 10
    await verify_api_key(store, issued.token, now=T0 + 10 + LAST_USED_RESOLUTION_MS - 1)
    assert await last_used() == T0 + 10
    await verify_api_key(store, issued.token, now=T0 + 10 + LAST_USED_RESOLUTION_MS)
    assert await last_used() == T0 + 10 + LAST_USED_RESOLUTION_MS
    await verify_api_key(store, issued.token[:-1] + "!", now=T0 + 10 * LAST_USED_RESOLUTION_MS)
    assert await last_used() == T0 + 10 + LAST_USED_RESOLUTION_MS


async def test_revocation_through_one_handle_is_seen_through_another_at_once(db_url: str) -> None:
    """Two handles on one database stand for two replicas: nothing is cached between them."""
    issuer, verifier = await open_store(db_url), await open_store(db_url)
    try:
        issued = await issue_api_key(issuer, tenant_id="acme", user_id="alice")
        assert await verify_api_key(verifier, issued.token) == KeyIdentity(
            "acme", "alice", "member", issued.key.key_id
        )
        await issuer.revoke_api_key(issued.key.key_id, at=issued.key.created_at + 1)
        assert await verify_api_key(verifier, issued.token) is None
    finally:
        await issuer.close()
        await verifier.close()
