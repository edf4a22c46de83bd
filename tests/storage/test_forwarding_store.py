"""``ForwardingStore`` passes every member of the ``Store`` protocol to the store it wraps, so a
subclass changes only the calls it writes out."""

from __future__ import annotations

import inspect
from typing import Any

from typing_extensions import get_protocol_members

from runyard.storage import ForwardingStore, Store, Thread
from runyard.storage.inmemory import InMemoryStore

OWNER = {"tenant_id": "acme", "resource_id": "alice"}


class ShoutingTitles(ForwardingStore):
    async def save_thread(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        loud = None if title is None else title.upper()
        return await self.inner.save_thread(
            thread_id, tenant_id=tenant_id, resource_id=resource_id, title=loud, metadata=metadata
        )


def test_every_member_of_the_protocol_is_a_forwarder_of_the_class() -> None:
    for name in get_protocol_members(Store):
        member = inspect.getattr_static(ForwardingStore, name)
        if isinstance(inspect.getattr_static(Store, name), property):
            assert isinstance(member, property), name
        else:
            assert inspect.iscoroutinefunction(member), name
    assert isinstance(ForwardingStore(InMemoryStore()), Store)


async def test_an_override_changes_its_call_and_the_rest_reach_the_inner_store() -> None:
    inner = InMemoryStore()
    store = ShoutingTitles(inner)
    await store.save_thread("t1", title="quiet", **OWNER)
    saved = [t.title for t in await inner.list_threads(**OWNER)]
    await store.set_thread_title("t1", "still quiet", **OWNER)
    renamed = [t.title for t in await store.list_threads(**OWNER)]
    seen = (store.backend, store.vector_search)
    await store.close()

    assert saved == ["QUIET"]
    assert renamed == ["still quiet"]
    assert seen == ("memory", inner.vector_search)
    assert await inner.list_threads(**OWNER) == []  # closing it closed the inner store
