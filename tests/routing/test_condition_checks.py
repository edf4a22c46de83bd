"""``all`` / ``any`` / ``not`` and their nesting: the outcome, and the field tests that decided it."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter
from routing_catalogs import context

from runyard.registry import Condition
from runyard.routing import check_condition

CONDITION: TypeAdapter[Condition] = TypeAdapter(Condition)


def check(when: dict[str, Any], **fields: Any) -> tuple[bool, list[str]]:
    result = check_condition(CONDITION.validate_python(when), context(**fields))
    return result.matched, [str(reason) for reason in result.reasons]


ROLE = {"field": "user_role", "eq": "finance"}
PAGE = {"field": "ui_page", "regex": "^/billing"}


def test_all_matches_when_every_test_does_and_names_every_test() -> None:
    assert check({"all": [ROLE, PAGE]}, user_role="finance", ui_page="/billing") == (
        True,
        [
            'when.all[0]: user_role = "finance" equals "finance"',
            'when.all[1]: ui_page = "/billing" matches regex "^/billing"',
        ],
    )


def test_all_fails_on_one_failed_test_and_names_each_failed_test_only() -> None:
    assert check({"all": [ROLE, PAGE]}, user_role="finance", ui_page="/home") == (
        False,
        ['when.all[1]: ui_page = "/home" does not match regex "^/billing"'],
    )
    assert check({"all": [ROLE, PAGE]}) == (
        False,
        ["when.all[0]: user_role is absent", "when.all[1]: ui_page is absent"],
    )


def test_any_matches_on_one_test_and_names_the_tests_that_matched() -> None:
    assert check({"any": [ROLE, PAGE]}, ui_page="/billing") == (
        True,
        ['when.any[1]: ui_page = "/billing" matches regex "^/billing"'],
    )


def test_any_fails_when_no_test_matches_and_names_all_of_them() -> None:
    assert check({"any": [ROLE, PAGE]}, user_role="sales") == (
        False,
        [
            'when.any[0]: user_role = "sales" does not equal "finance"',
            "when.any[1]: ui_page is absent",
        ],
    )


def test_not_flips_the_outcome_and_keeps_the_reasons() -> None:
    assert check({"not": ROLE}, user_role="finance") == (
        False,
        ['when.not: user_role = "finance" equals "finance"'],
    )
    assert check({"not": ROLE}, user_role="sales") == (
        True,
        ['when.not: user_role = "sales" does not equal "finance"'],
    )
    assert check({"not": {"not": ROLE}}, user_role="finance")[0] is True


NESTED = {
    "all": [
        {"field": "user_role", "in": ["finance", "accounting"]},
        {
            "any": [
                PAGE,
                {"not": {"field": "flags.classic_ui", "exists": True}},
            ]
        },
        {
            "not": {
                "all": [
                    {"field": "metadata.plan", "eq": "free"},
                    {"field": "flags.trial", "eq": True},
                ]
            }
        },
    ]
}


@pytest.mark.parametrize(
    ("fields", "matched", "reasons"),
    [
        (
            {"user_role": "finance", "ui_page": "/home"},
            True,
            [
                'when.all[0]: user_role = "finance" is one of ["finance", "accounting"]',
                "when.all[1].any[1].not: flags.classic_ui is absent",
                "when.all[2].not.all[0]: metadata.plan is absent",
                "when.all[2].not.all[1]: flags.trial is absent",
            ],
        ),
        (
            {"user_role": "finance", "ui_page": "/home", "flags": {"classic_ui": True}},
            False,
            [
                'when.all[1].any[0]: ui_page = "/home" does not match regex "^/billing"',
                "when.all[1].any[1].not: flags.classic_ui = true is present",
            ],
        ),
        (
            {
                "user_role": "accounting",
                "ui_page": "/billing",
                "flags": {"trial": True},
                "metadata": {"plan": "free"},
            },
            False,
            [
                'when.all[2].not.all[0]: metadata.plan = "free" equals "free"',
                "when.all[2].not.all[1]: flags.trial = true equals true",
            ],
        ),
    ],
)
def test_nested_conditions_name_the_tests_that_decided_each_level(
    fields: dict[str, Any], matched: bool, reasons: list[str]
) -> None:
    assert check(NESTED, **fields) == (matched, reasons)
