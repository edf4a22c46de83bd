"""``route`` and ``explain_route``: precedence (explicit agent, rules by priority, default), the
tenant's routing or the shared one, versions, and the explanation of every rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from routing_catalogs import agents, catalog_of, context

from runyard.registry import AgentSpec, Catalog, CatalogEntry, RoutingSpec
from runyard.routing import (
    InvocationContext,
    NoRoutingError,
    RouteDecision,
    UnknownAgentError,
    explain_route,
    route,
)

PINNED = "0" * 64

CATALOG = (
    agents("helper", "billing", "sales", "support")
    + agents("billing", tenant="acme")
    + agents("vip", tenant="globex")
    + f"""
kind: routing
default_agent: helper
rules:
  - id: low
    priority: 1
    when: {{field: metadata.topic, exists: true}}
    agent: support
  - id: billing-page
    priority: 10
    when: {{field: ui_page, regex: "^/billing"}}
    agent: billing
  - id: sales-role
    priority: 10
    when: {{field: user_role, eq: sales}}
    agent: sales
  - id: pinned
    priority: 5
    when: {{field: flags.pinned, eq: true}}
    agent: billing
    version: "{PINNED}"
---
kind: routing
tenant: globex
default_agent: vip
rules:
  - id: globex-billing
    when: {{field: ui_page, regex: "^/billing"}}
    agent: billing
"""
)


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return catalog_of(tmp_path, CATALOG)


def version(catalog: Catalog, agent_id: str, tenant: str | None = None) -> str:
    entry = catalog.agent(agent_id, tenant)
    assert entry is not None
    return entry.version


def test_no_rule_matches_so_the_default_agent_at_its_version(catalog: Catalog) -> None:
    assert route(catalog, context(ui_page="/home")) == RouteDecision(
        "helper", version(catalog, "helper"), None, "default"
    )


def test_the_highest_priority_rule_that_matches_wins(catalog: Catalog) -> None:
    request = context(ui_page="/billing", metadata={"topic": "x"})

    assert route(catalog, request) == RouteDecision(
        "billing", version(catalog, "billing"), "billing-page", "rule"
    )


def test_rules_of_equal_priority_keep_file_order(catalog: Catalog) -> None:
    both = context(ui_page="/billing", user_role="sales")

    assert route(catalog, both).rule_id == "billing-page"
    assert route(catalog, context(user_role="sales")).rule_id == "sales-role"


def test_a_lower_priority_rule_decides_when_the_higher_ones_do_not_match(
    catalog: Catalog,
) -> None:
    assert route(catalog, context(metadata={"topic": "x"})).rule_id == "low"


def test_a_rule_that_pins_a_version_carries_it_into_the_decision(catalog: Catalog) -> None:
    assert route(catalog, context(flags={"pinned": True})) == RouteDecision(
        "billing", PINNED, "pinned", "rule"
    )


def test_a_tenant_without_its_own_routing_uses_the_shared_one_with_its_own_agents(
    catalog: Catalog,
) -> None:
    decision = route(catalog, context(tenant="acme", ui_page="/billing"))

    assert decision == RouteDecision(
        "billing", version(catalog, "billing", "acme"), "billing-page", "rule"
    )
    assert decision.version != version(catalog, "billing")


def test_a_tenant_with_its_own_routing_never_reads_the_shared_rules(catalog: Catalog) -> None:
    globex = context(tenant="globex", user_role="sales")

    assert route(catalog, globex) == RouteDecision(
        "vip", version(catalog, "vip", "globex"), None, "default"
    )
    assert route(catalog, context(tenant="globex", ui_page="/billing/2")).rule_id == (
        "globex-billing"
    )


def test_an_explicit_agent_wins_over_every_rule(catalog: Catalog) -> None:
    request = context(ui_page="/billing")

    assert route(catalog, request, agent_id="support") == RouteDecision(
        "support", version(catalog, "support"), None, "explicit"
    )
    acme = context(tenant="acme")
    assert route(catalog, acme, agent_id="billing").version == version(catalog, "billing", "acme")


def test_an_explicit_agent_the_tenant_does_not_have_is_an_unknown_agent(
    catalog: Catalog,
) -> None:
    with pytest.raises(UnknownAgentError, match="no agent 'vip' for tenant 'default'") as error:
        route(catalog, context(), agent_id="vip")

    assert (error.value.agent_id, error.value.tenant) == ("vip", "default")
    assert route(catalog, context(tenant="globex"), agent_id="vip").agent_id == "vip"


def test_a_rule_or_default_naming_an_agent_the_tenant_lacks_is_an_unknown_agent() -> None:
    # load_catalog rejects such a file; a catalog built by hand can still hold one.
    helper = AgentSpec.model_validate({"kind": "agent", "id": "helper", "model": "runyard:demo"})
    routing = RoutingSpec.model_validate(
        {
            "kind": "routing",
            "default_agent": "gone",
            "rules": [
                {
                    "id": "pinned",
                    "when": {"field": "flags.x", "exists": True},
                    "agent": "missing",
                    "version": PINNED,
                }
            ],
        }
    )
    catalog = Catalog.of([CatalogEntry(helper, "a.yaml", 1), CatalogEntry(routing, "r.yaml", 1)])

    with pytest.raises(UnknownAgentError, match="no agent 'missing' for tenant 'default'"):
        route(catalog, context(flags={"x": 1}))
    with pytest.raises(UnknownAgentError, match="no agent 'gone' for tenant 'default'"):
        route(catalog, context())


def test_without_any_routing_only_an_explicit_agent_can_be_chosen(tmp_path: Path) -> None:
    catalog = catalog_of(tmp_path, agents("helper"))

    with pytest.raises(NoRoutingError, match="no routing for tenant 'default' and no shared one"):
        route(catalog, context())
    explained = explain_route(catalog, context(), agent_id="helper")
    assert explained.decision.reason == "explicit"
    assert (explained.routing_source, explained.rules) == (None, ())


def test_the_explanation_lists_every_rule_in_evaluation_order(
    catalog: Catalog, tmp_path: Path
) -> None:
    explained = explain_route(catalog, context(user_role="sales", ui_page="/home"))

    assert explained.decision.rule_id == "sales-role"
    assert (explained.tenant, explained.routing_tenant) == ("default", None)
    routing_line = CATALOG.splitlines().index("kind: routing") + 1
    assert explained.routing_source == f"{tmp_path / 'catalog.yaml'}:{routing_line}"
    rows = [
        (rule.rule_id, rule.priority, rule.agent_id, rule.outcome, [str(r) for r in rule.reasons])
        for rule in explained.rules
    ]
    assert rows == [
        (
            "billing-page",
            10,
            "billing",
            "no-match",
            ['when: ui_page = "/home" does not match regex "^/billing"'],
        ),
        ("sales-role", 10, "sales", "matched", ['when: user_role = "sales" equals "sales"']),
        ("pinned", 5, "billing", "skipped", []),
        ("low", 1, "support", "skipped", []),
    ]
    assert explained.rules[2].version == PINNED


def test_the_explanation_of_a_default_shows_why_each_rule_failed(catalog: Catalog) -> None:
    explained = explain_route(catalog, context(flags={"pinned": "yes"}))

    assert explained.decision.reason == "default"
    assert [rule.outcome for rule in explained.rules] == ["no-match"] * 4
    assert [str(r) for r in explained.rules[2].reasons] == [
        'when: flags.pinned = "yes" does not equal true (a string, not a boolean)'
    ]


def test_an_explicit_agent_skips_every_rule_of_the_routing(catalog: Catalog) -> None:
    explained = explain_route(catalog, context(tenant="globex"), agent_id="helper")

    assert explained.routing_tenant == "globex"
    assert [(rule.rule_id, rule.outcome) for rule in explained.rules] == [
        ("globex-billing", "skipped")
    ]


def test_route_is_the_decision_of_the_explanation(catalog: Catalog) -> None:
    requests = [
        context(),
        context(ui_page="/billing"),
        context(tenant="acme", user_role="sales"),
        InvocationContext(tenant="globex", ui_page="/billing"),
    ]
    for request in requests:
        assert route(catalog, request) == explain_route(catalog, request).decision
