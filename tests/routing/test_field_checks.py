"""Every operator of a field test, against present, absent and mistyped values: a mismatch of
types never raises, it does not match and the reason names the value and its type."""

from __future__ import annotations

from typing import Any

import pytest
from routing_catalogs import context, field_test

from runyard.routing import check_field

CONTEXT = context(
    user="ann",
    user_role="finance",
    ui_page="/billing/invoices",
    flags={"beta": True, "classic_ui": False, "limit": 3},
    metadata={
        "topic": "expenses",
        "amount": 120.5,
        "count": 1,
        "note": None,
        "account": {"plan": "pro", "seats": 12},
        "tags": ["a", "b"],
        "zero": "0",
    },
)


def check(**test: Any) -> tuple[bool, str]:
    result = check_field(field_test(**test), CONTEXT, "when")
    return result.matched, str(result)


@pytest.mark.parametrize(
    ("test", "matched", "explained"),
    [
        # eq compares as JSON: the same type and value
        ({"field": "user_role", "eq": "finance"}, True, 'user_role = "finance" equals "finance"'),
        (
            {"field": "user_role", "eq": "admin"},
            False,
            'user_role = "finance" does not equal "admin"',
        ),
        ({"field": "metadata.count", "eq": 1.0}, True, "metadata.count = 1 equals 1.0"),
        (
            {"field": "metadata.count", "eq": True},
            False,
            "metadata.count = 1 does not equal true (a number, not a boolean)",
        ),
        (
            {"field": "flags.beta", "eq": 1},
            False,
            "flags.beta = true does not equal 1 (a boolean, not a number)",
        ),
        (
            {"field": "metadata.zero", "eq": 0},
            False,
            'metadata.zero = "0" does not equal 0 (a string, not a number)',
        ),
        ({"field": "metadata.note", "eq": None}, True, "metadata.note = null equals null"),
        (
            {"field": "metadata.tags", "eq": "a"},
            False,
            'metadata.tags = ["a", "b"] does not equal "a" (an array, not a string)',
        ),
        # ne is the opposite of eq
        ({"field": "user_role", "ne": "admin"}, True, 'user_role = "finance" differs from "admin"'),
        ({"field": "user_role", "ne": "finance"}, False, 'user_role = "finance" equals "finance"'),
        (
            {"field": "flags.limit", "ne": "3"},
            True,
            'flags.limit = 3 differs from "3" (a number, not a string)',
        ),
        # in
        (
            {"field": "metadata.topic", "in": ["expenses", "invoices"]},
            True,
            'metadata.topic = "expenses" is one of ["expenses", "invoices"]',
        ),
        (
            {"field": "flags.limit", "in": ["3", True]},
            False,
            'flags.limit = 3 is not one of ["3", true]',
        ),
        ({"field": "flags.limit", "in": [1, 3.0]}, True, "flags.limit = 3 is one of [1, 3.0]"),
        # regex searches the string
        (
            {"field": "ui_page", "regex": "^/billing"},
            True,
            'ui_page = "/billing/invoices" matches regex "^/billing"',
        ),
        (
            {"field": "ui_page", "regex": "invoices"},
            True,
            'ui_page = "/billing/invoices" matches regex "invoices"',
        ),
        (
            {"field": "ui_page", "regex": "^invoices$"},
            False,
            'ui_page = "/billing/invoices" does not match regex "^invoices$"',
        ),
        (
            {"field": "flags.limit", "regex": "3"},
            False,
            "flags.limit = 3 is a number; regex needs a string",
        ),
        # exists
        (
            {"field": "flags.classic_ui", "exists": True},
            True,
            "flags.classic_ui = false is present",
        ),
        (
            {"field": "flags.classic_ui", "exists": False},
            False,
            "flags.classic_ui = false is present",
        ),
        ({"field": "metadata.note", "exists": True}, True, "metadata.note = null is present"),
        # comparisons take numbers only
        ({"field": "metadata.amount", "lt": 200}, True, "metadata.amount = 120.5 is below 200"),
        (
            {"field": "metadata.amount", "lt": 120.5},
            False,
            "metadata.amount = 120.5 is not below 120.5",
        ),
        (
            {"field": "metadata.amount", "le": 120.5},
            True,
            "metadata.amount = 120.5 is at most 120.5",
        ),
        ({"field": "metadata.amount", "le": 100}, False, "metadata.amount = 120.5 is above 100"),
        (
            {"field": "metadata.account.seats", "gt": 10},
            True,
            "metadata.account.seats = 12 is above 10",
        ),
        (
            {"field": "metadata.account.seats", "gt": 12},
            False,
            "metadata.account.seats = 12 is not above 12",
        ),
        ({"field": "flags.limit", "ge": 3}, True, "flags.limit = 3 is at least 3"),
        ({"field": "flags.limit", "ge": 3.5}, False, "flags.limit = 3 is below 3.5"),
        (
            {"field": "metadata.zero", "lt": 1},
            False,
            'metadata.zero = "0" is a string; lt needs a number',
        ),
        (
            {"field": "flags.beta", "ge": 0},
            False,
            "flags.beta = true is a boolean; ge needs a number",
        ),
        (
            {"field": "metadata.note", "gt": 0},
            False,
            "metadata.note = null is null; gt needs a number",
        ),
        (
            {"field": "metadata.account", "le": 5},
            False,
            'metadata.account = {"plan": "pro", "seats": 12} is an object; le needs a number',
        ),
    ],
)
def test_each_operator_on_a_present_value(
    test: dict[str, Any], matched: bool, explained: str
) -> None:
    assert check(**test) == (matched, f"when: {explained}")


@pytest.mark.parametrize(
    ("operator", "operand", "matched", "explained"),
    [
        ("eq", None, False, "is absent"),
        ("ne", "x", True, 'is absent, so it differs from "x"'),
        ("in", ["x"], False, "is absent"),
        ("regex", ".*", False, "is absent"),
        ("exists", True, False, "is absent"),
        ("exists", False, True, "is absent"),
        ("lt", 1, False, "is absent"),
        ("le", 1, False, "is absent"),
        ("gt", 1, False, "is absent"),
        ("ge", 1, False, "is absent"),
    ],
)
def test_an_absent_field_matches_only_ne_and_exists_false(
    operator: str, operand: Any, matched: bool, explained: str
) -> None:
    for field in ("metadata.missing", "flags.missing", "ui_page"):
        bare = context(user="ann")
        result = check_field(field_test(field=field, **{operator: operand}), bare, "when")
        assert (result.matched, str(result)) == (matched, f"when: {field} {explained}")


def test_a_dotted_path_through_a_value_that_is_no_object_is_absent_and_says_where() -> None:
    assert check(field="metadata.topic.name", exists=False) == (
        True,
        "when: metadata.topic.name is absent (metadata.topic is a string)",
    )
    assert check(field="metadata.tags.0", eq="a") == (
        False,
        "when: metadata.tags.0 is absent (metadata.tags is an array)",
    )


def test_the_tenant_and_user_are_fields_too() -> None:
    assert check(field="tenant", eq="default") == (
        True,
        'when: tenant = "default" equals "default"',
    )
    assert check(field="user", in_=["ann", "bob"])[0] is True


def test_a_long_value_is_cut_short_in_the_reason() -> None:
    long = context(metadata={"text": "x" * 200})

    result = check_field(field_test(field="metadata.text", eq="y"), long, "when")

    assert str(result) == f'when: metadata.text = "{"x" * 78}… does not equal "y"'
    assert result.actual.value == "x" * 200
