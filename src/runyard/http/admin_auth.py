"""``require_admin``: the gate of the ``/v1/admin`` routes, until runyard has real security.

Off unless ``RUNYARD_ADMIN_TOKEN`` is set (403 ``admin_disabled``); then every admin request
needs ``Authorization: Bearer <token>`` (401 ``admin_unauthorized`` otherwise). The token is
compared in constant time.
"""

from __future__ import annotations

import hmac

from fastapi import Request

from runyard.http.errors import ApiError
from runyard.http.state import AppState

__all__ = ["require_admin"]


def require_admin(request: Request) -> None:
    """Refuse the request unless the admin API is on and it carries the admin token."""
    state: AppState = request.app.state.runyard
    token = state.settings.admin_token
    if not token:
        raise ApiError(
            403, "admin_disabled", "the admin API is off; set RUNYARD_ADMIN_TOKEN to turn it on"
        )
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip(), token):
        raise ApiError(
            401,
            "admin_unauthorized",
            "the admin API needs the header Authorization: Bearer <RUNYARD_ADMIN_TOKEN>",
            headers={"WWW-Authenticate": "Bearer"},
        )
