"""Routing: which catalog agent a request goes to, decided by the tenant's rules, and why.

``route(catalog, context, agent_id=None)`` returns a ``RouteDecision`` (agent, version, rule,
reason); ``explain_route`` returns the same decision with every rule of the routing, whether it
matched and the field tests that decided it (the dry run). The rules are the catalog's
``kind: routing`` specs (``runyard.registry``); the request is an ``InvocationContext``. See
docs/catalog.md, "Routing".

Layer 5b: above ``runyard.registry``, whose specs it reads; imports layers 0 to 5 only.
"""

from runyard.routing.condition_check import ConditionCheck, check_condition
from runyard.routing.context import FieldValue, InvocationContext, read_field, read_path
from runyard.routing.decision import (
    RouteDecision,
    RouteExplanation,
    RouteReason,
    RuleEvaluation,
    RuleOutcome,
)
from runyard.routing.errors import NoRoutingError, RoutingError, UnknownAgentError
from runyard.routing.field_check import FieldCheck, check_field, check_value
from runyard.routing.router import explain_route, route, rules_in_order

__all__ = [
    "ConditionCheck",
    "FieldCheck",
    "FieldValue",
    "InvocationContext",
    "NoRoutingError",
    "RouteDecision",
    "RouteExplanation",
    "RouteReason",
    "RoutingError",
    "RuleEvaluation",
    "RuleOutcome",
    "UnknownAgentError",
    "check_condition",
    "check_field",
    "check_value",
    "explain_route",
    "read_field",
    "read_path",
    "route",
    "rules_in_order",
]
