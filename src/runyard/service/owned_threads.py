"""Finding and claiming an owner's thread: the one place the service checks thread ownership."""

from __future__ import annotations

from runyard.service.errors import ThreadNotFound
from runyard.service.owner import Owner
from runyard.storage import Store, Thread, ThreadOwnershipError

__all__ = ["claim_thread", "owned_thread"]


async def owned_thread(store: Store, owner: Owner, thread_id: str) -> Thread:
    """The owner's thread; ``ThreadNotFound`` when it is missing or another owner's."""
    thread = await store.get_thread(thread_id, tenant_id=owner.tenant_id, resource_id=owner.user_id)
    if thread is None:
        raise ThreadNotFound(thread_id)
    return thread


async def claim_thread(store: Store, owner: Owner, thread_id: str) -> Thread:
    """The owner's thread, created when new; another owner's thread is not found."""
    existing = await store.get_thread(
        thread_id, tenant_id=owner.tenant_id, resource_id=owner.user_id
    )
    if existing is not None:
        return existing
    try:
        return await store.save_thread(
            thread_id, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
    except ThreadOwnershipError as exc:
        raise ThreadNotFound(thread_id) from exc
