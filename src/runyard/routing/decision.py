"""What routing decided (``RouteDecision``) and how (``RouteExplanation``, one entry per rule)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from runyard.routing.field_check import FieldCheck

__all__ = ["RouteDecision", "RouteExplanation", "RouteReason", "RuleEvaluation", "RuleOutcome"]

RouteReason = Literal["explicit", "rule", "default"]
"""``explicit``: the request named the agent; ``rule``: a rule matched; ``default``: none did."""

RuleOutcome = Literal["matched", "no-match", "skipped"]
"""``skipped``: not evaluated, because an earlier rule matched or the request named the agent."""


@dataclass(frozen=True, slots=True)
class RouteDecision:
    """The agent a request goes to, at which version, and why."""

    agent_id: str
    version: str
    """The rule's pinned version, else the content hash of the agent the tenant gets."""
    rule_id: str | None
    """The rule that matched; ``None`` for ``explicit`` and ``default``."""
    reason: RouteReason


@dataclass(frozen=True, slots=True)
class RuleEvaluation:
    """One rule of the routing, in evaluation order, and what became of it."""

    rule_id: str
    priority: int
    agent_id: str
    version: str | None
    """The version the rule pins, if any."""
    outcome: RuleOutcome
    reasons: tuple[FieldCheck, ...] = ()
    """The field tests that decided the outcome (none when skipped)."""


@dataclass(frozen=True, slots=True)
class RouteExplanation:
    """A decision with every rule of the routing it read, as a dry run shows it."""

    decision: RouteDecision
    tenant: str
    routing_tenant: str | None
    """Whose routing was read: the tenant's own, ``None`` for the shared one."""
    routing_source: str | None
    """``file:line`` of that routing; ``None`` when the catalog has none for the tenant."""
    rules: tuple[RuleEvaluation, ...] = ()
