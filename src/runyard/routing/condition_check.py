"""A rule's ``when`` (``all`` / ``any`` / ``not`` over field tests) evaluated against a context.

Every branch is evaluated, none is cut short, so an explanation can name every field test that
decided the outcome: those whose own outcome agrees with their parent's. A failed ``all`` names
each test that failed, a matched ``any`` each test that matched, a failed ``any`` all of them;
``not`` flips the outcome and keeps its condition's reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from runyard.registry import AllOf, AnyOf, Condition, FieldTest, Not
from runyard.routing.context import InvocationContext
from runyard.routing.field_check import FieldCheck, check_field

__all__ = ["ConditionCheck", "check_condition"]


@dataclass(frozen=True, slots=True)
class ConditionCheck:
    """Whether a condition matched, and the field tests that decided it."""

    matched: bool
    reasons: tuple[FieldCheck, ...]


def check_condition(
    condition: Condition, context: InvocationContext, path: str = "when"
) -> ConditionCheck:
    """Evaluate ``condition``; ``path`` names it in the reasons (``when.any[1]``)."""
    if isinstance(condition, FieldTest):
        check = check_field(condition, context, path)
        return ConditionCheck(check.matched, (check,))
    if isinstance(condition, Not):
        inner = check_condition(condition.not_, context, f"{path}.not")
        return ConditionCheck(not inner.matched, inner.reasons)
    if isinstance(condition, AllOf):
        return _combine(condition.all, context, f"{path}.all", every=True)
    if isinstance(condition, AnyOf):
        return _combine(condition.any, context, f"{path}.any", every=False)
    assert_never(condition)


def _combine(
    conditions: list[Condition], context: InvocationContext, path: str, *, every: bool
) -> ConditionCheck:
    checks = [check_condition(item, context, f"{path}[{i}]") for i, item in enumerate(conditions)]
    outcomes = [check.matched for check in checks]
    matched = all(outcomes) if every else any(outcomes)
    decisive = (reason for check in checks if check.matched == matched for reason in check.reasons)
    return ConditionCheck(matched, tuple(decisive))
