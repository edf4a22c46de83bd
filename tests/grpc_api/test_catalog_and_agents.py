"""ListAgents (real capabilities, filters) and StreamCatalog (a snapshot, then deltas)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from google.protobuf import json_format
from grpc_harness import ALICE, grpc_served

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.service import reload_catalog
from runyard.testing import scripted_model

MODEL = "openai:gpt-4o-mini"

AGENTS = f"""\
kind: agent
id: support
model: {MODEL}
tools: [calculator]
---
kind: agent
id: billing
description: Invoices and notes.
model: {MODEL}
tools: [calculator, save_note]
limits: {{max_iterations: 5, timeout_s: 60, requests_per_minute: 30, concurrent_runs: 2}}
---
kind: agent
id: bill-acme
tenant: acme
model: {MODEL}
"""

ROUTING = """\
kind: routing
default_agent: support
"""


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(AGENTS)
    (directory / "routing.yaml").write_text(ROUTING)
    return directory


def serving(tmp_path: Path, catalog: Path) -> object:
    return grpc_served(
        f"sqlite:///{tmp_path / 'runyard.db'}",
        settings={"catalog_dir": str(catalog), "tenant_concurrent_runs": 9},
        model_for=lambda _name: scripted_model([]),
    )


async def test_list_agents_shows_real_capabilities_and_honours_its_filters(
    tmp_path: Path, catalog: Path
) -> None:
    async with serving(tmp_path, catalog) as served:  # type: ignore[attr-defined]

        async def listed(**filters: str) -> list[str]:
            reply = await served.inference.ListAgents(
                pb.ListAgentsRequest(**filters), metadata=ALICE
            )
            return [agent.id for agent in reply.agents]

        everything = await served.inference.ListAgents(pb.ListAgentsRequest(), metadata=ALICE)
        by_tool = await listed(tool="save_note")
        by_prefix = await listed(id_prefix="bil")
        by_tenant = await listed(tenant="acme")

    agents = {agent.id: agent for agent in everything.agents}
    assert sorted(agents) == ["bill-acme", "billing", "support"]
    billing = agents["billing"]
    assert billing.model == "function:scripted"  # what it runs: the tests map models to scripts
    assert len(billing.version) == 64
    assert billing.description == "Invoices and notes."
    tools = {tool.name: tool for tool in billing.tools}
    assert set(tools) == {"calculator", "save_note"}
    assert tools["save_note"].requires_approval is True
    assert tools["calculator"].requires_approval is False
    assert all(tool.description for tool in billing.tools)
    assert (billing.limits.max_iterations, billing.limits.timeout_s) == (5, 60)
    assert billing.rate_limits.requests_per_minute == 30
    assert billing.rate_limits.concurrent_runs == 2
    assert billing.rate_limits.tenant_concurrent_runs == 9
    assert not billing.rate_limits.HasField("tenant_requests_per_minute")
    assert agents["support"].default is True
    assert by_tool == ["billing"]
    assert sorted(by_prefix) == ["bill-acme", "billing"]
    assert by_tenant == ["bill-acme"]


async def test_stream_catalog_sends_a_snapshot_then_a_delta_per_change(
    tmp_path: Path, catalog: Path
) -> None:
    async with serving(tmp_path, catalog) as served:  # type: ignore[attr-defined]
        call = served.catalog.StreamCatalog(pb.StreamCatalogRequest(), metadata=ALICE)
        snapshot = await call.read()
        edited = AGENTS.replace("tools: [calculator]\n", "tools: [calculator]\ninstructions: Hi.\n")
        (catalog / "agents.yaml").write_text(edited.split("---\nkind: agent\nid: bill-acme")[0])
        await reload_catalog(served.parts.catalog)
        delta = await asyncio.wait_for(call.read(), 10)
        call.cancel()

    assert snapshot.snapshot is True
    assert sorted((s.kind, s.id, s.tenant) for s in snapshot.upserted) == [
        ("agent", "bill-acme", "acme"),
        ("agent", "billing", ""),
        ("agent", "support", ""),
        ("routing", "", ""),
    ]
    support = next(s for s in snapshot.upserted if s.id == "support")
    assert json_format.MessageToDict(support.spec)["model"] == MODEL
    assert delta.snapshot is False
    assert delta.generation > snapshot.generation
    assert [(s.id, json_format.MessageToDict(s.spec)["instructions"]) for s in delta.upserted] == [
        ("support", "Hi.")
    ]
    assert [(k.kind, k.id, k.tenant) for k in delta.removed] == [("agent", "bill-acme", "acme")]
