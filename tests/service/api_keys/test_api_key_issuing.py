"""``issue_api_key``: the key is handed out once; the store keeps its id, hash and owner only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from runyard.service.api_keys import InvalidKeyRequest, hash_api_key, issue_api_key, key_id_of
from runyard.storage import ApiKey, Store

DAY_MS = 86_400_000


async def test_an_issued_key_is_stored_by_its_id_with_its_hash_and_owner(store: Store) -> None:
    issued = await issue_api_key(
        store,
        tenant_id="acme",
        user_id="alice@acme.example",
        role="admin",
        name="deploy bot",
        expires_in=timedelta(days=30),
        now=1_000,
    )
    expected = ApiKey(
        key_id=issued.token[:16],
        secret_hash=hash_api_key(issued.token),
        tenant_id="acme",
        user_id="alice@acme.example",
        role="admin",
        name="deploy bot",
        created_at=1_000,
        expires_at=1_000 + 30 * DAY_MS,
        revoked_at=None,
        last_used_at=None,
    )
    assert issued.key == expected
    assert key_id_of(issued.token) == expected.key_id
    assert await store.get_api_key(expected.key_id) == expected
    assert await store.list_api_keys() == [expected]


async def test_by_default_a_key_is_a_nameless_member_that_never_expires(store: Store) -> None:
    issued = await issue_api_key(store, tenant_id="acme", user_id="bob")
    assert (issued.key.role, issued.key.name, issued.key.expires_at) == ("member", None, None)


async def test_the_key_itself_is_nowhere_but_in_the_token(store: Store) -> None:
    issued = await issue_api_key(store, tenant_id="acme", user_id="bob", name="ci")
    secret = issued.token[16:]
    assert secret not in repr(issued)
    assert secret not in repr(issued.key)


@pytest.mark.parametrize(
    ("fields", "field", "problem"),
    [
        ({"tenant_id": "acme/other"}, "tenant", "must be 1-128 of"),
        ({"tenant_id": ""}, "tenant", "must be 1-128 of"),
        ({"user_id": "a" * 129}, "user", "must be 1-128 of"),
        ({"user_id": "bob smith"}, "user", "must be 1-128 of"),
        ({"role": "owner"}, "role", "'owner' is not one of admin, member"),
        ({"name": ""}, "name", "must be 1-128 printable characters"),
        ({"name": "two\nlines"}, "name", "must be 1-128 printable characters"),
        ({"name": "n" * 129}, "name", "must be 1-128 printable characters"),
        ({"expires_in": timedelta(0)}, "expires", "longer than 0"),
        ({"expires_in": timedelta(days=-1)}, "expires", "longer than 0"),
    ],
)
async def test_a_bad_field_is_named_and_nothing_is_stored(
    store: Store, fields: dict[str, Any], field: str, problem: str
) -> None:
    request: dict[str, Any] = {"tenant_id": "acme", "user_id": "bob", **fields}
    with pytest.raises(InvalidKeyRequest, match=problem) as raised:
        await issue_api_key(store, **request)
    assert raised.value.field == field
    assert str(raised.value).startswith(f"{field}: ")
    assert await store.list_api_keys() == []
