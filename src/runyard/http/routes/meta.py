"""``GET /v1/agents``, ``GET /v1/me`` (whom the caller acts for), ``GET /healthz`` (the process
answers) and ``GET /readyz`` (it serves)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from runyard.http.bodies import AgentList, Health, Me, Readiness
from runyard.http.identity import Caller, request_caller, request_owner
from runyard.http.openapi import error_responses
from runyard.http.state import AppState, Parts, parts
from runyard.service import Owner

__all__ = ["router"]

router = APIRouter(tags=["meta"])


@router.get(
    "/v1/agents",
    response_model=None,
    responses={200: {"model": AgentList}, **error_responses(400, 401, 503)},
)
async def agents(
    app: Annotated[Parts, Depends(parts)], owner: Annotated[Owner, Depends(request_owner)]
) -> dict[str, Any]:
    """The agents the caller's tenant may run, the default first (with a catalog: the tenant's
    own specs and the shared ones it does not override, with their versions)."""
    return {
        "agents": [
            {
                "name": agent.name,
                "model": agent.model,
                "tools": list(agent.tools),
                "default": agent.default,
                **({"version": agent.version} if agent.version else {}),
                **({"tenant": agent.tenant} if agent.tenant else {}),
                **({"description": agent.description} if agent.description else {}),
            }
            for agent in app.agents.served(owner.tenant_id)
        ]
    }


@router.get(
    "/v1/me", response_model=None, responses={200: {"model": Me}, **error_responses(400, 401, 503)}
)
async def me(
    request: Request, caller: Annotated[Caller, Depends(request_caller)]
) -> dict[str, Any]:
    """Whom the caller's requests act for: tenant and user (``default`` and ``default`` with
    ``RUNYARD_AUTH=none``), and with ``keys`` the key's role and public id — never the key."""
    state: AppState = request.app.state.runyard
    owner = caller.owner
    return {
        "auth": state.settings.auth,
        "tenant": owner.tenant_id,
        "user": owner.user_id,
        **({"role": caller.role} if caller.role else {}),
        **({"keyId": caller.key_id} if caller.key_id else {}),
    }


@router.get("/healthz", response_model=Health)
async def healthz() -> dict[str, str]:
    """Always ok while the process answers."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "starting or stopping"}},
)
async def readyz(request: Request) -> JSONResponse:
    """200 once the store is open, the crash sweep done and the model layer loaded; 503 while
    starting or stopping. ``eventDelivery`` ``polling`` (Redis unreachable) is still 200: runs
    go on and event streams get every event from the log, only later, and every replica shares
    the one Redis — a 503 would take them all out of the load balancer at once. ``role`` is the
    replica's ``RUNYARD_ROLE``."""
    state: AppState = request.app.state.runyard
    role = state.settings.role
    if state.shutdown.stopping:
        return JSONResponse({"status": "stopping", "role": role}, status_code=503)
    if state.parts is None:
        return JSONResponse({"status": "starting", "role": role}, status_code=503)
    delivery = state.parts.events.bus.delivery
    return JSONResponse({"status": "ready", "role": role, "eventDelivery": delivery})
