"""Who ``runyard chat`` says it is: nothing for a server without authentication, the API key for
``RUNYARD_AUTH=keys``, the identity headers for ``proxy`` — only what was given."""

from __future__ import annotations

from runyard.cli.chat.client import Connection


def test_nothing_given_sends_no_identity_at_all() -> None:
    assert Connection().headers() == {}


def test_a_key_is_sent_as_a_bearer_token_and_kept_out_of_the_repr() -> None:
    connection = Connection(api_key="ryk_secret")
    assert connection.headers() == {"Authorization": "Bearer ryk_secret"}
    assert "ryk_secret" not in repr(connection)


def test_tenant_and_user_are_sent_only_when_given() -> None:
    assert Connection(tenant="acme", user="ann").headers() == {
        "X-Runyard-Tenant": "acme",
        "X-Runyard-User": "ann",
    }
    assert Connection(user="ann").headers() == {"X-Runyard-User": "ann"}
