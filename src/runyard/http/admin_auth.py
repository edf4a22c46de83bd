"""``require_admin``: who may call the ``/v1/admin`` routes, and whose agents they may touch.

- ``RUNYARD_AUTH=keys``: the caller's API key (``request_caller``: 401 without a good one) must
  have the role ``admin``, else 403 ``admin_required``. An admin key manages its own tenant's
  agents; an admin key of ``RUNYARD_OPERATOR_TENANT`` manages every tenant's and the shared ones.
  ``RUNYARD_ADMIN_TOKEN`` is not consulted.
- ``none`` and ``proxy``: nothing says who is an admin, so one shared secret does.
  ``RUNYARD_ADMIN_TOKEN`` unset: 403 ``admin_disabled``; set: ``Authorization: Bearer <token>``
  (compared in constant time) or 401 ``admin_unauthorized``. Its holder manages every agent.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from runyard.http.errors import ApiError
from runyard.http.identity import Caller, bearer_token, request_caller
from runyard.http.state import AppState

__all__ = ["AdminScope", "require_admin"]


@dataclass(frozen=True, slots=True)
class AdminScope:
    """Whose agents an admin request may manage: ``tenant``'s, or every one (None)."""

    tenant: str | None

    def may_manage(self, tenant: str | None) -> bool:
        """True when the agents of ``tenant`` (None: the shared ones) are this admin's."""
        return self.tenant is None or tenant == self.tenant

    def check(self, tenant: str | None, field: str) -> None:
        """403 ``tenant_forbidden`` naming ``field`` unless ``may_manage(tenant)``."""
        if not self.may_manage(tenant):
            whose = f"tenant {tenant}'s agents" if tenant else "the shared agents"
            raise ApiError(
                403,
                "tenant_forbidden",
                f"{field}: an admin of tenant {self.tenant} manages its own tenant's agents, "
                f"not {whose} (RUNYARD_OPERATOR_TENANT's admins manage every tenant's)",
                field,
            )


async def require_admin(
    request: Request, caller: Annotated[Caller, Depends(request_caller)]
) -> AdminScope:
    """The admin scope of the request; refused unless its caller is an admin (``async``: no
    worker thread, see ``state.parts``)."""
    settings = _state(request).settings
    if settings.auth == "keys":
        if caller.role != "admin":
            raise ApiError(
                403, "admin_required", "the admin API needs an API key with the role admin"
            )
        tenant = caller.owner.tenant_id
        return AdminScope(None if tenant == settings.operator_tenant else tenant)
    token = settings.admin_token
    if not token:
        raise ApiError(
            403, "admin_disabled", "the admin API is off; set RUNYARD_ADMIN_TOKEN to turn it on"
        )
    given = bearer_token(request) or ""
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise ApiError(
            401,
            "admin_unauthorized",
            # Not "Authorization: Bearer <…>": the response redactor would blank that.
            "the admin API needs the header Authorization with the value Bearer and the "
            "RUNYARD_ADMIN_TOKEN",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return AdminScope(None)


def _state(request: Request) -> AppState:
    state: AppState = request.app.state.runyard
    return state
