"""The key format: ``ryk_`` + a 12-character public id + 32 random bytes in 43 base62 digits."""

from __future__ import annotations

import hashlib
import secrets
import string

import pytest

from runyard.service.api_keys import (
    API_KEY_LENGTH,
    API_KEY_PREFIX,
    hash_api_key,
    key_id_of,
    new_api_key,
)

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def test_a_new_key_is_the_prefix_and_59_base62_characters_starting_with_its_id() -> None:
    keys = {new_api_key() for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert (len(key), API_KEY_LENGTH) == (59, 59)
        assert key.startswith(API_KEY_PREFIX)
        assert set(key.removeprefix(API_KEY_PREFIX)) <= set(BASE62)
        assert key_id_of(key) == key[:16]
    assert len({key_id_of(key) for key in keys}) == 200


def test_the_secret_is_all_32_random_bytes_even_the_largest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for value in (b"\xff" * 32, b"\x00" * 32, bytes(range(32))):
        monkeypatch.setattr(secrets, "token_bytes", lambda n, v=value: v[:n])
        key = new_api_key()
        assert len(key) == API_KEY_LENGTH
        secret = sum(BASE62.index(c) * 62**i for i, c in enumerate(reversed(key[16:])))
        assert secret == int.from_bytes(value, "big")


@pytest.mark.parametrize(
    "token",
    [
        "",
        "ryk_",
        "ryk_abc",
        "Bearer ryk_" + "a" * 55,
        "ryk_" + "a" * 54,
        "ryk_" + "a" * 56,
        "ryx_" + "a" * 55,
        "RYK_" + "a" * 55,
        "ryk_" + "a" * 54 + "-",
        "ryk_" + "a" * 54 + "é",
        "ryk_" + "a" * 54 + "\n",
        "ryk_" + "a" * 53 + " a",
        " ryk_" + "a" * 54,
    ],
)
def test_anything_that_cannot_be_a_key_has_no_key_id(token: str) -> None:
    assert key_id_of(token) is None


def test_what_is_stored_of_a_key_is_the_sha256_of_the_whole_key() -> None:
    key = new_api_key()
    assert hash_api_key(key) == hashlib.sha256(key.encode()).hexdigest()
    assert key not in hash_api_key(key)
