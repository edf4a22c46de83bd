"""The ``ApiKeys`` part: a key is stored once under its id, found by it, listed without its
owner's other tenants, revoked once (a second revocation keeps the first), and its last use only
moves forward."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from store_parts import assert_implements

from runyard.storage import ApiKey, ApiKeyConflict, ApiKeys


def api_key(key_id: str, tenant: str = "acme", created_at: int = 1000, **changes: Any) -> ApiKey:
    """A member key of alice's that never expires, changed by ``changes``."""
    hashed = f"{key_id}-hash".ljust(64, "0")
    key = ApiKey(key_id, hashed, tenant, "alice", "member", key_id, created_at, None, None, None)
    return replace(key, **changes)


async def test_every_backend_is_an_api_keys_part(store: ApiKeys) -> None:
    assert_implements(store, ApiKeys)


async def test_a_key_is_found_by_its_id_as_it_was_stored(store: ApiKeys) -> None:
    key = api_key("ryk_a", role="admin", name="deploy bot", expires_at=9_000)
    nameless = api_key("ryk_b", name=None)
    await store.create_api_key(key)
    await store.create_api_key(nameless)
    assert await store.get_api_key("ryk_a") == key
    assert await store.get_api_key("ryk_b") == nameless
    assert await store.get_api_key("ryk_unknown") is None


async def test_a_taken_id_is_refused_and_the_stored_key_kept(store: ApiKeys) -> None:
    key = api_key("ryk_a")
    await store.create_api_key(key)
    with pytest.raises(ApiKeyConflict, match="ryk_a"):
        await store.create_api_key(api_key("ryk_a", tenant="evil", role="admin"))
    assert await store.get_api_key("ryk_a") == key
    assert await store.list_api_keys() == [key]


async def test_keys_are_listed_oldest_first_and_by_tenant(store: ApiKeys) -> None:
    late, early, same_time = (
        api_key("ryk_c", created_at=3000),
        api_key("ryk_z", created_at=1000),
        api_key("ryk_a", created_at=3000),
    )
    other = api_key("ryk_b", tenant="globex", created_at=2000)
    for key in (late, other, early, same_time):
        await store.create_api_key(key)
    assert await store.list_api_keys() == [early, other, same_time, late]
    assert await store.list_api_keys(tenant_id="acme") == [early, same_time, late]
    assert await store.list_api_keys(tenant_id="globex") == [other]
    assert await store.list_api_keys(tenant_id="nobody") == []


async def test_revoking_is_idempotent_and_keeps_the_first_time(store: ApiKeys) -> None:
    await store.create_api_key(api_key("ryk_a"))
    await store.create_api_key(api_key("ryk_b"))
    revoked = await store.revoke_api_key("ryk_a", at=5000)
    assert revoked == api_key("ryk_a", revoked_at=5000)
    assert await store.revoke_api_key("ryk_a", at=6000) == revoked
    assert await store.get_api_key("ryk_a") == revoked
    assert await store.get_api_key("ryk_b") == api_key("ryk_b")


async def test_revoking_an_unknown_id_finds_nothing_and_creates_nothing(store: ApiKeys) -> None:
    assert await store.revoke_api_key("ryk_unknown", at=5000) is None
    assert await store.get_api_key("ryk_unknown") is None
    assert await store.list_api_keys() == []


@pytest.mark.parametrize("odd", ["", "ryk_\x00", "ryk_" + "x" * 300, "ryk_\ud800", "ryk_ü"])
async def test_an_odd_id_finds_nothing_and_fails_nothing(store: ApiKeys, odd: str) -> None:
    await store.create_api_key(api_key("ryk_a"))
    assert await store.get_api_key(odd) is None
    assert await store.revoke_api_key(odd, at=5000) is None
    await store.mark_api_key_used(odd, at=5000)
    assert await store.list_api_keys() == [api_key("ryk_a")]


async def test_the_last_use_only_moves_forward(store: ApiKeys) -> None:
    await store.create_api_key(api_key("ryk_a"))
    await store.mark_api_key_used("ryk_a", at=2000)
    await store.mark_api_key_used("ryk_a", at=1500)
    assert await store.get_api_key("ryk_a") == api_key("ryk_a", last_used_at=2000)
    await store.mark_api_key_used("ryk_a", at=2500)
    assert await store.get_api_key("ryk_a") == api_key("ryk_a", last_used_at=2500)
    await store.mark_api_key_used("ryk_unknown", at=2500)
    assert await store.get_api_key("ryk_unknown") is None
