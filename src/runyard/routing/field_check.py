"""One field test of a rule (``{field: ui_page, regex: "^/billing"}``) evaluated against a context.

Every outcome comes with a sentence saying why, naming the value the context really had. A value
of the wrong type never raises: it does not match, and the sentence says which type it was.

- ``eq`` / ``in`` compare as JSON: same type and value (``true`` is not ``1``; ``1`` is ``1.0``).
- ``ne`` is the opposite of ``eq``, so a value of another type, or an absent field, differs.
- ``regex`` searches the string (``re.search``): anchor with ``^…$`` to match all of it.
- ``lt``/``le``/``gt``/``ge`` compare numbers only (not booleans, not numeric strings).
- An absent field matches only ``exists: false`` and ``ne``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from runyard.registry import FieldTest, Operator
from runyard.routing.context import FieldValue, InvocationContext, read_field
from runyard.routing.json_values import described_type, is_number, json_equal, json_type, show

__all__ = ["FieldCheck", "check_field", "check_value"]


@dataclass(frozen=True, slots=True)
class FieldCheck:
    """A field test's outcome: ``str()`` is ``when.any[0]: ui_page = "/home" does not match …``."""

    path: str
    """Where the test is in the rule, as catalog errors name it (``when.all[1].not``)."""
    field: str
    operator: Operator
    operand: JsonValue
    actual: FieldValue
    matched: bool
    detail: str
    """What the field held and how it compared (``= "/home" does not match regex "^/b"``)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.field} {self.detail}"


def check_field(test: FieldTest, context: InvocationContext, path: str) -> FieldCheck:
    """Evaluate ``test`` (found at ``path`` in its rule) against ``context``."""
    return check_value(test, read_field(context, test.field), path)


def check_value(test: FieldTest, actual: FieldValue, path: str) -> FieldCheck:
    """Evaluate ``test`` against a value read elsewhere (a tool call's arguments: the
    ``approval_policy`` middleware), with the same operators and sentences."""
    operand: JsonValue = test.operand
    if actual.present:
        matched, verdict = _OPERATORS[test.operator](actual.value, operand)
        detail = f"= {show(actual.value)} {verdict}"
    else:
        matched, detail = _absent(actual, test.operator, operand)
    return FieldCheck(path, test.field, test.operator, operand, actual, matched, detail)


Verdict = tuple[bool, str]


def _absent(actual: FieldValue, op: Operator, operand: JsonValue) -> Verdict:
    detail = "is absent" + (f" ({actual.absent_because})" if actual.absent_because else "")
    if op == "ne":
        return True, f"{detail}, so it differs from {show(operand)}"
    return op == "exists" and operand is False, detail


def _eq(value: JsonValue, operand: JsonValue) -> Verdict:
    if json_equal(value, operand):
        return True, f"equals {show(operand)}"
    return False, f"does not equal {show(operand)}{_types_differ(value, operand)}"


def _ne(value: JsonValue, operand: JsonValue) -> Verdict:
    if json_equal(value, operand):
        return False, f"equals {show(operand)}"
    return True, f"differs from {show(operand)}{_types_differ(value, operand)}"


def _in(value: JsonValue, operand: JsonValue) -> Verdict:
    options = operand if isinstance(operand, list) else []
    if any(json_equal(value, option) for option in options):
        return True, f"is one of {show(operand)}"
    return False, f"is not one of {show(operand)}"


def _regex(value: JsonValue, pattern: JsonValue) -> Verdict:
    if not isinstance(value, str):
        return False, f"is {described_type(value)}; regex needs a string"
    if re.search(str(pattern), value):
        return True, f"matches regex {show(pattern)}"
    return False, f"does not match regex {show(pattern)}"


def _exists(_value: JsonValue, operand: JsonValue) -> Verdict:
    return operand is True, "is present"


def _comparison(
    name: str, compare: Callable[[Any, Any], bool], holds: str, fails: str
) -> Callable[[JsonValue, JsonValue], Verdict]:
    def verdict(value: JsonValue, operand: JsonValue) -> Verdict:
        if not is_number(value):
            return False, f"is {described_type(value)}; {name} needs a number"
        if compare(value, operand):
            return True, f"{holds} {show(operand)}"
        return False, f"{fails} {show(operand)}"

    return verdict


def _types_differ(value: JsonValue, operand: JsonValue) -> str:
    if json_type(value) == json_type(operand):
        return ""
    return f" ({described_type(value)}, not {described_type(operand)})"


_OPERATORS: dict[Operator, Callable[[JsonValue, JsonValue], Verdict]] = {
    "eq": _eq,
    "ne": _ne,
    "in": _in,
    "regex": _regex,
    "exists": _exists,
    "lt": _comparison("lt", operator.lt, "is below", "is not below"),
    "le": _comparison("le", operator.le, "is at most", "is above"),
    "gt": _comparison("gt", operator.gt, "is above", "is not above"),
    "ge": _comparison("ge", operator.ge, "is at least", "is below"),
}
