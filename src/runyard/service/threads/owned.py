"""Finding and claiming an owner's thread: the one place the service checks thread ownership.

Both take the thread id a client chose and return the stored ``Thread``, whose ``id`` is the
owner's key for it (``Owner.thread_key``): what every later store call of the request uses.
"""

from __future__ import annotations

from runyard.service.errors import ThreadNotFound
from runyard.service.owner import Owner
from runyard.storage import Store, Thread, ThreadOwnershipError

__all__ = ["claim_thread", "owned_thread"]


async def owned_thread(store: Store, owner: Owner, thread_id: str) -> Thread:
    """The owner's thread ``thread_id``; ``ThreadNotFound`` when the owner has none of that id."""
    key = owner.thread_key(thread_id)
    thread = await store.get_thread(key, tenant_id=owner.tenant_id, resource_id=owner.user_id)
    if thread is None:
        raise ThreadNotFound(thread_id)
    return thread


async def claim_thread(store: Store, owner: Owner, thread_id: str) -> Thread:
    """The owner's thread ``thread_id``, created when new."""
    key = owner.thread_key(thread_id)
    existing = await store.get_thread(key, tenant_id=owner.tenant_id, resource_id=owner.user_id)
    if existing is not None:
        return existing
    try:
        return await store.save_thread(key, tenant_id=owner.tenant_id, resource_id=owner.user_id)
    except ThreadOwnershipError as exc:
        # Only SDK code sharing the database could have made a thread under this key.
        raise ThreadNotFound(thread_id) from exc
