"""``KeyIdentity``: whom a verified API key acts for."""

from __future__ import annotations

from dataclasses import dataclass

from runyard.service.owner import Owner
from runyard.storage import ApiKeyRole

__all__ = ["KeyIdentity"]


@dataclass(frozen=True, slots=True)
class KeyIdentity:
    """The tenant, user and role of a key that verified, and the key's public id."""

    tenant_id: str
    user_id: str
    role: ApiKeyRole
    key_id: str

    @property
    def owner(self) -> Owner:
        """The owner whose threads requests with this key reach."""
        return Owner(self.tenant_id, self.user_id)
