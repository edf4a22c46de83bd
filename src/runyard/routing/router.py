"""``route``: which agent of the catalog a request goes to, and ``explain_route``: why.

The order of precedence:

1. an agent the request names (``agent_id``), when the tenant has it (else ``UnknownAgentError``);
2. the first rule that matches, in the tenant's routing (its own, else the shared one), highest
   ``priority`` first and rules of equal priority in file order; later rules are skipped;
3. the routing's ``default_agent``.

The version is the one a rule pins, else the content hash of the spec the tenant gets under that
id (its own spec, else the shared one). ``route`` is ``explain_route`` without the explanation:
one evaluation, so a dry run can never disagree with a real request.
"""

from __future__ import annotations

from runyard.registry import Catalog, CatalogEntry, RoutingRule, RoutingSpec
from runyard.routing.condition_check import check_condition
from runyard.routing.context import InvocationContext
from runyard.routing.decision import RouteDecision, RouteExplanation, RuleEvaluation, RuleOutcome
from runyard.routing.errors import NoRoutingError, UnknownAgentError
from runyard.routing.field_check import FieldCheck

__all__ = ["explain_route", "route", "rules_in_order"]


def route(
    catalog: Catalog, context: InvocationContext, *, agent_id: str | None = None
) -> RouteDecision:
    """The agent for this request.

    Raises ``UnknownAgentError`` when the agent chosen does not exist for the tenant: one the
    request names, or (in a catalog the loader did not check) a rule's or the default;
    ``NoRoutingError`` when the request names none and the tenant has no routing.
    """
    return explain_route(catalog, context, agent_id=agent_id).decision


def explain_route(
    catalog: Catalog, context: InvocationContext, *, agent_id: str | None = None
) -> RouteExplanation:
    """The decision ``route`` makes, with every rule of the routing and what became of it."""
    tenant = context.tenant
    routing = catalog.routing_for(tenant)
    if agent_id is not None:
        decision = RouteDecision(agent_id, _version(catalog, agent_id, tenant), None, "explicit")
        return _explanation(decision, tenant, routing, _skipped(routing))
    if routing is None:
        raise NoRoutingError(tenant)
    decision, evaluations = _by_rules(catalog, context, routing.spec)
    return _explanation(decision, tenant, routing, evaluations)


def _by_rules(
    catalog: Catalog, context: InvocationContext, routing: RoutingSpec
) -> tuple[RouteDecision, tuple[RuleEvaluation, ...]]:
    """The first rule that matches decides, else the default agent; every rule is accounted for."""
    tenant = context.tenant
    rules = rules_in_order(routing)
    evaluations: list[RuleEvaluation] = []
    for index, rule in enumerate(rules):
        check = check_condition(rule.when, context)
        outcome: RuleOutcome = "matched" if check.matched else "no-match"
        evaluations.append(_evaluation(rule, outcome, check.reasons))
        if check.matched:
            current = _version(catalog, rule.agent, tenant)  # the agent must exist, pinned or not
            version = rule.version or current
            skipped = [_evaluation(later, "skipped") for later in rules[index + 1 :]]
            return RouteDecision(rule.agent, version, rule.id, "rule"), (*evaluations, *skipped)
    default = routing.default_agent
    decision = RouteDecision(default, _version(catalog, default, tenant), None, "default")
    return decision, tuple(evaluations)


def rules_in_order(routing: RoutingSpec) -> list[RoutingRule]:
    """The rules as they are evaluated: highest priority first, equal priorities in file order."""
    return sorted(routing.rules, key=lambda rule: -rule.priority)  # sorted() is stable


def _version(catalog: Catalog, agent_id: str, tenant: str) -> str:
    entry = catalog.agent(agent_id, tenant)
    if entry is None:
        raise UnknownAgentError(agent_id, tenant)
    return entry.version


def _evaluation(
    rule: RoutingRule, outcome: RuleOutcome, reasons: tuple[FieldCheck, ...] = ()
) -> RuleEvaluation:
    return RuleEvaluation(rule.id, rule.priority, rule.agent, rule.version, outcome, reasons)


def _skipped(routing: CatalogEntry[RoutingSpec] | None) -> tuple[RuleEvaluation, ...]:
    if routing is None:
        return ()
    return tuple(_evaluation(rule, "skipped") for rule in rules_in_order(routing.spec))


def _explanation(
    decision: RouteDecision,
    tenant: str,
    routing: CatalogEntry[RoutingSpec] | None,
    rules: tuple[RuleEvaluation, ...],
) -> RouteExplanation:
    if routing is None:
        return RouteExplanation(decision, tenant, None, None, rules)
    source = f"{routing.source}:{routing.line}"
    return RouteExplanation(decision, tenant, routing.spec.tenant, source, rules)
