"""``Owner``: whom a request acts for — a user (``resource_id``) inside a tenant.

Thread ids belong to their owner: two users may each have a thread ``t1``, and nobody can find,
probe or claim another's. The service stores a thread under ``Owner.thread_key`` — ``tenant/
user/thread`` — and shows clients only the thread id they chose.
"""

from __future__ import annotations

from dataclasses import dataclass

from runyard.ids import is_thread_id
from runyard.runtime import MemoryScope
from runyard.service.errors import InvalidThreadId

__all__ = ["Owner"]


@dataclass(frozen=True, slots=True)
class Owner:
    """A thread belongs to exactly one owner; every other owner finds nothing of it.

    Neither id may be empty or contain ``/`` (the HTTP identity headers cannot), which keeps
    ``thread_key`` one-to-one.
    """

    tenant_id: str = "default"
    user_id: str = "default"

    def __post_init__(self) -> None:
        for value in (self.tenant_id, self.user_id):
            if not value or "/" in value:
                raise ValueError(f"tenant and user ids are non-empty, without '/': {value!r}")

    @classmethod
    def of_key(cls, key: str) -> Owner:
        """The owner of the thread stored under ``key`` (one of ``thread_key``'s)."""
        tenant_id, user_id, _thread = key.split("/", 2)
        return cls(tenant_id, user_id)

    def thread_key(self, thread_id: str) -> str:
        """The storage key of this owner's thread ``thread_id``: ``tenant/user/thread``.

        Raises ``InvalidThreadId`` unless ``thread_id`` fits ``runyard.ids.THREAD_ID_PATTERN``.
        """
        if not is_thread_id(thread_id):
            raise InvalidThreadId(thread_id)
        return f"{self.tenant_id}/{self.user_id}/{thread_id}"

    def thread_id_of(self, key: str) -> str:
        """The thread id the client chose, from one of this owner's keys."""
        return key.removeprefix(self._prefix)

    def owns_key(self, key: str) -> bool:
        """True when ``key`` is one of this owner's thread keys."""
        return key.startswith(self._prefix)

    def scope(self, key: str) -> MemoryScope:
        """The memory scope of the thread stored under ``key``."""
        return MemoryScope(key, self.user_id, self.tenant_id)

    @property
    def _prefix(self) -> str:
        return f"{self.tenant_id}/{self.user_id}/"
