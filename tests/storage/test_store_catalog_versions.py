"""The ``CatalogVersions`` part: versions stored once by hash with their spec JSON, listed per
agent and tenant, activated only when they are a version of that agent, and a revision that
only activations move."""

from __future__ import annotations

from store_parts import assert_implements

from runyard.storage import AgentActivation, AgentVersion, CatalogVersions


def version(
    name: str, agent_id: str = "support", tenant: str | None = None, at: int = 1000
) -> AgentVersion:
    spec = {"kind": "agent", "id": agent_id, "tenant": tenant, "instructions": f"v {name}"}
    return AgentVersion(name * 8, agent_id, tenant, spec, "api", "api", at)


async def test_every_backend_is_a_catalog_versions_part(store: CatalogVersions) -> None:
    assert_implements(store, CatalogVersions)


async def test_a_version_is_stored_once_and_read_back_by_its_hash(
    store: CatalogVersions,
) -> None:
    first = version("a")
    assert await store.save_agent_version(first) is True
    assert await store.save_agent_version(version("a", at=2000)) is False
    assert await store.get_agent_version(first.version) == first
    assert await store.get_agent_version("missing") is None


async def test_versions_are_listed_per_agent_and_tenant_oldest_first(
    store: CatalogVersions,
) -> None:
    for stored in (
        version("b", at=2000),
        version("a", at=1000),
        version("c", tenant="acme"),
        version("d", agent_id="billing"),
    ):
        await store.save_agent_version(stored)

    shared = await store.list_agent_versions("support", None)
    acme = await store.list_agent_versions("support", "acme")
    assert [v.version for v in shared] == ["a" * 8, "b" * 8]
    assert [(v.version, v.tenant) for v in acme] == [("c" * 8, "acme")]
    assert await store.list_agent_versions("ghost", None) == []


async def test_activations_move_the_revision_and_only_a_version_of_that_agent_activates(
    store: CatalogVersions,
) -> None:
    await store.save_agent_version(version("a"))
    await store.save_agent_version(version("c", tenant="acme"))
    assert await store.catalog_revision() == 0

    assert await store.activate_agent_version("support", None, "a" * 8) == 1
    assert await store.activate_agent_version("support", None, "c" * 8) is None  # acme's
    assert await store.activate_agent_version("billing", None, "a" * 8) is None
    assert await store.activate_agent_version("support", "acme", "c" * 8) == 2
    activations = await store.agent_activations()
    assert [(a.agent_id, a.tenant, a.version) for a in activations] == [
        ("support", None, "a" * 8),
        ("support", "acme", "c" * 8),
    ]
    assert all(isinstance(a, AgentActivation) for a in activations)

    assert await store.deactivate_agent("support", "acme") == 3
    assert await store.deactivate_agent("support", "acme") is None
    assert [a.tenant for a in await store.agent_activations()] == [None]
    assert await store.catalog_revision() == 3
