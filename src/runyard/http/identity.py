"""Who a request acts for: ``X-Runyard-Tenant`` and ``X-Runyard-User`` (both default ``default``).

runyard trusts these headers: put an authenticating proxy in front of it that sets them. Values
are 1 to 128 characters of letters, digits and ``._@-``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header

from runyard.http.errors import ApiError
from runyard.ids import IDENTITY_PATTERN, is_identity
from runyard.service import Owner

__all__ = ["IDENTITY_PATTERN", "TENANT_HEADER", "USER_HEADER", "request_owner"]

TENANT_HEADER = "X-Runyard-Tenant"
USER_HEADER = "X-Runyard-User"
# Documented, not enforced by FastAPI: a mismatch is runyard's 400 invalid_identity, not a 422.
_DOCUMENTED = {"pattern": IDENTITY_PATTERN}


def request_owner(
    tenant: Annotated[
        str,
        Header(alias=TENANT_HEADER, description="the tenant", json_schema_extra=_DOCUMENTED),
    ] = "default",
    user: Annotated[
        str,
        Header(alias=USER_HEADER, description="the user", json_schema_extra=_DOCUMENTED),
    ] = "default",
) -> Owner:
    """The request's owner, from its identity headers."""
    for header, value in ((TENANT_HEADER, tenant), (USER_HEADER, user)):
        if not is_identity(value):
            raise ApiError(
                400, "invalid_identity", f"{header} must be 1-128 of A-Z a-z 0-9 . _ @ -", header
            )
    return Owner(tenant, user)
