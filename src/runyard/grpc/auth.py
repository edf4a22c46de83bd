"""Who a gRPC call acts for: ``call_owner``, the same ``RUNYARD_AUTH`` modes as HTTP
(``runyard.http.identity``), read from the call's metadata.

- ``none``: tenant ``default``, user ``default``; identity metadata is refused.
- ``keys``: ``authorization: Bearer <key>``, verified on every call (one ``UNAUTHENTICATED`` for
  a missing, malformed, unknown, revoked or expired key); identity metadata is refused.
- ``proxy``: ``x-runyard-tenant`` and ``x-runyard-user`` (each default ``default``), the HTTP
  headers' names as gRPC metadata (lower case), trusted: a proxy in front sets them.
"""

from __future__ import annotations

from collections.abc import Sequence

from runyard.config import Settings
from runyard.grpc.status import CallError
from runyard.ids import is_identity
from runyard.service import Owner
from runyard.service.api_keys import verify_api_key
from runyard.storage import ApiKeyRole, Store

__all__ = ["TENANT_METADATA", "UNAUTHENTICATED", "USER_METADATA", "call_caller", "call_owner"]

TENANT_METADATA = "x-runyard-tenant"
USER_METADATA = "x-runyard-user"

UNAUTHENTICATED = (
    # Worded so the redactor, which every refusal passes, finds no credential to blank in it.
    "this server needs an API key: send the metadata key authorization with the value Bearer and "
    "your key, one neither revoked nor expired (runyard keys create makes one)"
)
_WHO = {
    "none": "every call acts for tenant and user 'default'",
    "keys": "the API key says who the caller is",
}

Metadata = Sequence[tuple[str, str | bytes]]


async def call_owner(settings: Settings, store: Store, metadata: Metadata) -> Owner:
    """The owner a call acts for, as ``RUNYARD_AUTH`` decides it; ``CallError`` otherwise."""
    owner, _role = await call_caller(settings, store, metadata)
    return owner


async def call_caller(
    settings: Settings, store: Store, metadata: Metadata
) -> tuple[Owner, ApiKeyRole | None]:
    """The owner a call acts for, and its API key's role (None: not authenticated by a key)."""
    values = _text_values(metadata)
    identity = (
        (TENANT_METADATA, values.get(TENANT_METADATA)),
        (USER_METADATA, values.get(USER_METADATA)),
    )
    mode = settings.auth
    if mode == "proxy":
        return _proxy_owner(identity), None
    for name, value in identity:
        if value is not None:
            raise CallError(
                "INVALID_ARGUMENT",
                "untrusted_identity_header",
                f"{name} is read only with RUNYARD_AUTH=proxy; this server runs with "
                f"RUNYARD_AUTH={mode}, where {_WHO[mode]}",
                field=name,
            )
    if mode == "none":
        return Owner(), None
    token = _bearer(values.get("authorization", ""))
    verified = None if token is None else await verify_api_key(store, token)
    if verified is None:
        raise CallError("UNAUTHENTICATED", "unauthenticated", UNAUTHENTICATED)
    return verified.owner, verified.role


def _text_values(metadata: Metadata) -> dict[str, str]:
    return {key.lower(): value for key, value in metadata if isinstance(value, str)}


def _bearer(header: str) -> str | None:
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _proxy_owner(identity: tuple[tuple[str, str | None], ...]) -> Owner:
    for name, value in identity:
        if value is not None and not is_identity(value):
            raise CallError(
                "INVALID_ARGUMENT",
                "invalid_identity",
                f"{name} must be 1-128 of A-Z a-z 0-9 . _ @ -",
                field=name,
            )
    tenant, user = (value or "default" for _, value in identity)
    return Owner(tenant, user)
