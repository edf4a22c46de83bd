"""The admin API of the catalog: ``PUT /v1/admin/agents/{id}`` stores (and activates) a version,
``GET …/versions`` lists them, ``POST …/activate`` switches, ``DELETE …/active`` returns the
agent to its file's spec. Gated by ``require_admin``: an admin key (``RUNYARD_AUTH=keys``) manages
its own tenant's agents, ``RUNYARD_ADMIN_TOKEN`` (other modes) every one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from runyard.http.admin_auth import AdminScope, require_admin
from runyard.http.bodies import (
    AgentVersionBody,
    AgentVersionsBody,
    DeactivatedBody,
    StoredAgentBody,
)
from runyard.http.errors import ApiError
from runyard.http.openapi import error_responses
from runyard.http.routes.schemas import ActivateRequest
from runyard.http.state import Parts, parts
from runyard.registry import SPEC_ID_PATTERN, AgentSpec
from runyard.service import CatalogAdmin
from runyard.storage import AgentVersion

__all__ = ["router"]

router = APIRouter(prefix="/v1/admin", tags=["admin"])

PartsDep = Annotated[Parts, Depends(parts)]
AdminDep = Annotated[AdminScope, Depends(require_admin)]
AgentId = Annotated[
    str, Path(pattern=SPEC_ID_PATTERN, description="the agent's id (the spec's `id`)")
]
Tenant = Annotated[
    str | None, Query(description="whose agent; absent = the spec every tenant shares")
]
_ERRORS = error_responses(400, 401, 403, 404, 413, 422, 503)

_SPEC_BODY = Body(
    description="an agent spec as JSON: what a `kind: agent` document of a catalog file says "
    "(docs/catalog.md, docs/catalog.schema.json); `kind` and `id` may be left out (`id` is the "
    "path's), `tenant` absent = shared by every tenant",
    openapi_examples={
        "agent": {
            "value": {
                "model": "openai:gpt-4o-mini",
                "instructions": "You are the support agent.",
                "tools": ["calculator"],
            }
        }
    },
)


def _admin(app: Parts) -> CatalogAdmin:
    if app.catalog is None:
        raise ApiError(
            404, "catalog_not_served", "this server serves no catalog (RUNYARD_CATALOG_DIR)"
        )
    return CatalogAdmin(app.catalog, app.store)


@router.put(
    "/agents/{agent_id}",
    response_model=StoredAgentBody,
    responses=_ERRORS,
)
async def put_agent(
    agent_id: AgentId,
    spec: Annotated[dict[str, Any], _SPEC_BODY],
    app: PartsDep,
    scope: AdminDep,
) -> dict[str, Any]:
    """Store the spec as a version of the agent (the same spec again is the same version) and
    make it the one that serves: it takes the place of the file's spec with the same tenant
    and id, on every replica within RUNYARD_CATALOG_POLL_SECONDS."""
    admin = _admin(app)
    if spec.get("id", agent_id) != agent_id:
        raise ApiError(422, "invalid_request", "body.id: must be the path's agent id", "body.id")
    try:
        validated = AgentSpec.model_validate({"kind": "agent", **spec, "id": agent_id})
    except ValidationError as exc:
        raise RequestValidationError(
            [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        ) from exc
    scope.check(validated.tenant, "body.tenant")
    stored, created = await admin.put(validated)
    return {**_version(stored, active=True), "created": created}


@router.get("/agents/{agent_id}/versions", response_model=AgentVersionsBody, responses=_ERRORS)
async def versions(
    agent_id: AgentId, app: PartsDep, scope: AdminDep, tenant: Tenant = None
) -> dict[str, Any]:
    """Every stored version of the agent of ``tenant``, oldest first, and which one serves."""
    scope.check(tenant, "query.tenant")
    listed = await _admin(app).versions(agent_id, tenant)
    catalog = app.catalog
    served = "leader" if catalog is not None and catalog.followed else "file"
    origin = None if listed.active is None else "database" if listed.activated else served
    return {
        "agentId": agent_id,
        "tenant": tenant,
        "activeVersion": listed.active,
        "activeOrigin": origin,
        "versions": [_version(v, active=v.version == listed.active) for v in listed.versions],
    }


@router.post(
    "/agents/{agent_id}/activate",
    response_model=AgentVersionBody,
    responses=_ERRORS,
)
async def activate(
    agent_id: AgentId, body: ActivateRequest, app: PartsDep, scope: AdminDep
) -> dict[str, Any]:
    """Serve a stored version of the agent (for the tenant the version belongs to); 404
    ``agent_version_not_found`` when it has no such version, or one of a tenant the caller
    may not manage."""
    stored = await _admin(app).activate(agent_id, body.version, tenants=scope.may_manage)
    return _version(stored, active=True)


@router.delete("/agents/{agent_id}/active", response_model=DeactivatedBody, responses=_ERRORS)
async def deactivate(
    agent_id: AgentId, app: PartsDep, scope: AdminDep, tenant: Tenant = None
) -> dict[str, Any]:
    """Drop the agent's activation: its file's spec serves again (an agent only the database
    had is gone). ``deactivated`` is false when it had none."""
    scope.check(tenant, "query.tenant")
    dropped = await _admin(app).deactivate(agent_id, tenant)
    return {"agentId": agent_id, "tenant": tenant, "deactivated": dropped}


def _version(stored: AgentVersion, *, active: bool) -> dict[str, Any]:
    return {
        "agentId": stored.agent_id,
        "tenant": stored.tenant,
        "version": stored.version,
        "origin": stored.origin,
        "source": stored.source,
        "createdAt": stored.created_at,
        "active": active,
    }
