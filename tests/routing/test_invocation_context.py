"""``InvocationContext``: strict about types, no unknown keys, absent fixed fields are ``None``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from runyard.routing import InvocationContext, read_field


def test_a_context_holds_the_fixed_fields_and_any_json_in_flags_and_metadata() -> None:
    context = InvocationContext.model_validate(
        {
            "tenant": "acme",
            "user": "ann",
            "user_role": "finance",
            "ui_page": "/billing",
            "flags": {"beta": True, "variant": "b"},
            "metadata": {"account": {"plan": "pro", "seats": 12}, "tags": ["a", None]},
        }
    )

    assert context.tenant == "acme"
    assert context.metadata["account"] == {"plan": "pro", "seats": 12}
    assert InvocationContext(tenant="acme") == InvocationContext.model_validate({"tenant": "acme"})


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"user_role": 3}, "user_role"),
        ({"user": True}, "user"),
        ({"flags": ["beta"]}, "flags"),
        ({"metadata": "x"}, "metadata"),
        ({"page": "/home"}, "page"),
        ({"tenant": "has space"}, "tenant"),
        ({"tenant": None}, "tenant"),
    ],
)
def test_a_value_of_the_wrong_type_or_an_unknown_key_is_refused(
    data: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as error:
        InvocationContext.model_validate({"tenant": "acme", **data})

    assert [e["loc"][0] for e in error.value.errors()] == [field]


def test_the_tenant_is_required() -> None:
    with pytest.raises(ValidationError, match="tenant"):
        InvocationContext.model_validate({"user": "ann"})


def test_reading_fields_tells_absent_from_null() -> None:
    context = InvocationContext(
        tenant="acme",
        user_role=None,
        metadata={"plan": None, "account": {"plan": "pro"}, "name": "x"},
    )

    assert read_field(context, "tenant").value == "acme"
    assert not read_field(context, "user_role").present
    assert read_field(context, "metadata.plan").present
    assert read_field(context, "metadata.plan").value is None
    assert read_field(context, "metadata.account.plan").value == "pro"
    assert not read_field(context, "metadata.account.seats").present
    assert not read_field(context, "flags.beta").present
    stopped = read_field(context, "metadata.name.first")
    assert (stopped.present, stopped.absent_because) == (False, "metadata.name is a string")
