"""Who a request acts for: ``request_caller``, the one dependency every ``/v1`` route reads it from.

``RUNYARD_AUTH`` says how it is decided:

- ``none`` (the default): nobody is authenticated; every request acts for tenant ``default``,
  user ``default``. An identity header is a 400 naming it: a proxy that sets them in front of a
  server left in ``none`` would otherwise merge every user into one, silently.
- ``keys``: ``Authorization: Bearer <key>`` (or ``X-Api-Key: <key>``, the header LangGraph's SDKs
  send their ``api_key`` in), verified by ``verify_api_key`` on every request (no
  cache: a revoked or expired key fails on the next request, on every replica). A missing,
  malformed, unknown, revoked or expired key is one and the same 401, so a caller learns nothing
  of which it was. Identity headers are a 400 here too: the key says who the caller is.
- ``proxy``: ``X-Runyard-Tenant`` and ``X-Runyard-User`` (each default ``default``), which runyard
  trusts: an authenticating proxy in front sets them. Values are 1 to 128 characters of letters,
  digits and ``._@-``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from runyard.http.errors import ApiError
from runyard.http.state import Parts, parts
from runyard.ids import IDENTITY_PATTERN, is_identity
from runyard.service import Owner
from runyard.service.api_keys import verify_api_key
from runyard.storage import ApiKeyRole

__all__ = [
    "IDENTITY_PATTERN",
    "TENANT_HEADER",
    "TICKET_PARAM",
    "UNAUTHENTICATED",
    "USER_HEADER",
    "Caller",
    "TenantHeader",
    "UserHeader",
    "bearer_token",
    "refuse_identity_headers",
    "request_caller",
    "request_owner",
]

TENANT_HEADER = "X-Runyard-Tenant"
TICKET_PARAM = "ticket"
"""The query parameter of a stream ticket (``RUNYARD_AUTH=keys`` only)."""
USER_HEADER = "X-Runyard-User"
# Documented, not enforced by FastAPI: a mismatch is runyard's 400 invalid_identity, not a 422.
_DOCUMENTED = {"pattern": IDENTITY_PATTERN}
_PROXY_ONLY = " (read only with RUNYARD_AUTH=proxy; any other mode answers 400 when it is sent)"

# Worded so that no secret shape matches it: "Authorization: Bearer <key>" reads as a header
# with a credential, and the redactor every response body passes would blank the instruction.
UNAUTHENTICATED = (
    "this server needs an API key: send the header Authorization with the value Bearer and your "
    "key, one neither revoked nor expired (runyard keys create makes one; runyard chat sends it "
    "with --api-key KEY or RUNYARD_API_KEY)"
)
"""The message of the one 401 for a missing, malformed, unknown, revoked or expired key."""

_WHO = {
    "none": "every request acts for tenant and user 'default'",
    "keys": "the API key says who the caller is",
}


@dataclass(frozen=True, slots=True)
class Caller:
    """Whom a request acts for, and the role and id of its API key (None: not authenticated by
    a key)."""

    owner: Owner
    role: ApiKeyRole | None = None
    key_id: str | None = None
    """The public id of the API key the request came with (``keys`` only)."""


TenantHeader = Annotated[
    str | None,
    Header(
        alias=TENANT_HEADER, description="the tenant" + _PROXY_ONLY, json_schema_extra=_DOCUMENTED
    ),
]
UserHeader = Annotated[
    str | None,
    Header(alias=USER_HEADER, description="the user" + _PROXY_ONLY, json_schema_extra=_DOCUMENTED),
]


async def request_caller(
    request: HTTPConnection,
    app: Annotated[Parts, Depends(parts)],
    tenant: TenantHeader = None,
    user: UserHeader = None,
) -> Caller:
    """The request's caller, as ``RUNYARD_AUTH`` decides it (FastAPI asks once per request)."""
    mode = request.app.state.runyard.settings.auth
    headers = ((TENANT_HEADER, tenant), (USER_HEADER, user))
    if mode == "proxy":
        return Caller(_proxy_owner(headers))
    caller = Caller(Owner()) if mode == "none" else await _key_caller(request, app)
    refuse_identity_headers(mode, headers)
    return caller


def refuse_identity_headers(mode: str, headers: tuple[tuple[str, str | None], ...]) -> None:
    """400 ``untrusted_identity_header`` for an identity header sent in ``none`` or ``keys``."""
    for header, value in headers:
        if value is not None:
            raise ApiError(
                400,
                "untrusted_identity_header",
                f"{header} is read only with RUNYARD_AUTH=proxy; this server runs with "
                f"RUNYARD_AUTH={mode}, where {_WHO[mode]}",
                header,
            )


async def request_owner(caller: Annotated[Caller, Depends(request_caller)]) -> Owner:
    """The owner whose threads, runs and agents the request reaches (``async``: no worker
    thread, see ``state.parts``)."""
    return caller.owner


def bearer_token(request: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without one."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _proxy_owner(headers: tuple[tuple[str, str | None], ...]) -> Owner:
    for header, value in headers:
        if value is not None and not is_identity(value):
            raise ApiError(
                400, "invalid_identity", f"{header} must be 1-128 of A-Z a-z 0-9 . _ @ -", header
            )
    tenant, user = (value or "default" for _, value in headers)
    return Owner(tenant, user)


async def _key_caller(request: HTTPConnection, app: Parts) -> Caller:
    token = bearer_token(request) or request.headers.get("x-api-key") or None
    identity = None if token is None else await verify_api_key(app.store, token)
    if identity is None:
        raise ApiError(
            401, "unauthenticated", UNAUTHENTICATED, headers={"WWW-Authenticate": "Bearer"}
        )
    return Caller(identity.owner, identity.role, identity.key_id)
