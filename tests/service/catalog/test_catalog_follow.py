"""A follower's view of its leader's catalog: a snapshot replaces it, a delta edits it."""

from __future__ import annotations

from runyard.registry import AgentSpec, CatalogEntry, CatalogSpec, RoutingSpec
from runyard.service import CatalogFeedUpdate, spec_key


def entry(spec: CatalogSpec) -> CatalogEntry[CatalogSpec]:
    return CatalogEntry(spec, "grpc://leader:8401", 0)


def agent(agent_id: str, instructions: str = "", tenant: str | None = None) -> AgentSpec:
    return AgentSpec(
        kind="agent", id=agent_id, model="runyard:demo", instructions=instructions, tenant=tenant
    )


def test_a_snapshot_replaces_everything_and_a_delta_upserts_and_removes() -> None:
    support, billing = entry(agent("support")), entry(agent("billing", tenant="acme"))
    routing = entry(RoutingSpec(kind="routing", default_agent="support"))
    first = CatalogFeedUpdate(1, True, (support, billing)).applied_to({})
    edited = entry(agent("support", "Be brief."))
    delta = CatalogFeedUpdate(2, False, (edited, routing), (("agent", "acme", "billing"),))
    after = delta.applied_to(first)
    again = CatalogFeedUpdate(3, True, (support,)).applied_to(after)

    assert sorted(first) == [("agent", "", "support"), ("agent", "acme", "billing")]
    assert after == {("agent", "", "support"): edited, ("routing", "", ""): routing}
    assert again == {("agent", "", "support"): support}
    assert spec_key(routing) == ("routing", "", "")
