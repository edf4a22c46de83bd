"""``GET /v1/catalog`` (what the served catalog loaded and refused) and ``POST /v1/route`` (the
dry run of routing: the decision, and every rule with why it did or did not match)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from runyard.config import Settings
from runyard.http.bodies import CatalogBody, RouteBody
from runyard.http.errors import ApiError
from runyard.http.identity import Caller, request_caller, request_owner
from runyard.http.openapi import error_responses
from runyard.http.routes.schemas import RouteRequest
from runyard.http.state import Parts, parts
from runyard.registry import CatalogEntry, CatalogError, CatalogSpec, RoutingSpec
from runyard.routing import (
    InvocationContext,
    NoRoutingError,
    RouteExplanation,
    RuleEvaluation,
    UnknownAgentError,
    explain_route,
)
from runyard.service import AgentRequired, CatalogAgents, Owner, UnknownAgent

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["catalog"])

PartsDep = Annotated[Parts, Depends(parts)]
OwnerDep = Annotated[Owner, Depends(request_owner)]
CallerDep = Annotated[Caller, Depends(request_caller)]


def _sees_rejected_files(caller: Caller, settings: Settings) -> bool:
    """A rejected file is the operator's to fix, and its errors may name any tenant's agents:
    with API keys only an admin of ``RUNYARD_OPERATOR_TENANT`` sees them. Without keys the
    callers are trusted (``none``: one tenant; ``proxy``: the gateway decides who asks)."""
    if settings.auth != "keys":
        return True
    operator = settings.operator_tenant
    return bool(operator) and caller.role == "admin" and caller.owner.tenant_id == operator


def _catalog(app: Parts) -> CatalogAgents:
    if app.catalog is None:
        raise ApiError(
            404, "catalog_not_served", "this server serves no catalog (RUNYARD_CATALOG_DIR)"
        )
    return app.catalog


@router.get("/catalog", response_model=CatalogBody, responses=error_responses(400, 401, 404, 503))
async def catalog(caller: CallerDep, request: Request, app: PartsDep) -> dict[str, Any]:
    """The specs the caller's tenant sees — the shared ones and its own, never another tenant's
    — served now (kind, id, tenant, version, origin), where they come from (``origin``:
    ``files`` of ``directory``, or ``leader``, the runyard ``directory`` names a follower's), the rejected files with their errors (for
    callers who may see them: ``_sees_rejected_files``), and every agent version of those
    tenants this process has compiled; 404 when the server serves no catalog."""
    owner = caller.owner
    served = _catalog(app)
    state = served.state
    serving = {entry.version for entry in state.catalog.agents.values()}
    visible = (None, owner.tenant_id)
    shown = (
        state.rejected if _sees_rejected_files(caller, request.app.state.runyard.settings) else ()
    )
    return {
        "directory": served.source,
        "origin": "leader" if served.followed else "files",
        "revision": state.catalog.revision,
        "generation": state.generation,
        "specs": [
            _spec(entry, served)
            for entry in state.catalog.entries()
            if entry.spec.tenant in visible
        ],
        "rejected": [
            {
                "file": rejected.file,
                "errors": [_error(e) for e in rejected.errors],
                "lastGood": rejected.last_good,
            }
            for rejected in shown
        ],
        "loaded": [
            {
                "agentId": entry.spec.id,
                "tenant": entry.spec.tenant,
                "version": entry.version,
                "serving": entry.version in serving,
            }
            for entry in served.loaded_versions()
            if entry.spec.tenant in visible
        ],
    }


@router.post(
    "/route", response_model=RouteBody, responses=error_responses(400, 401, 404, 413, 422, 503)
)
async def route(body: RouteRequest, owner: OwnerDep, app: PartsDep) -> dict[str, Any]:
    """The agent a chat with this context would get, and why: every rule of the tenant's
    routing, whether it matched and the field tests that decided it. Nothing runs."""
    served = _catalog(app)
    context = InvocationContext.model_validate(
        {**body.context.fields(), "tenant": owner.tenant_id, "user": owner.user_id}
    )
    try:
        explanation = explain_route(served.catalog, context, agent_id=body.agentId)
    except UnknownAgentError as exc:
        raise UnknownAgent(exc.agent_id, tenant=owner.tenant_id) from exc
    except NoRoutingError as exc:
        raise AgentRequired(str(exc)) from exc
    return _explanation(explanation)


def _spec(entry: CatalogEntry[CatalogSpec], served: CatalogAgents) -> dict[str, Any]:
    spec = entry.spec
    database = served.state.from_database(entry)
    origin = "database" if database else "leader" if served.followed else "file"
    return {
        "kind": spec.kind,
        "id": None if isinstance(spec, RoutingSpec) else spec.id,
        "tenant": spec.tenant,
        "version": entry.version,
        "origin": origin,
        "source": f"{entry.source}:{entry.line}" if origin == "file" else entry.source,
    }


def _error(error: CatalogError) -> dict[str, Any]:
    return {"file": error.file, "line": error.line, "field": error.field, "message": error.message}


def _explanation(explanation: RouteExplanation) -> dict[str, Any]:
    decision = explanation.decision
    return {
        "decision": {
            "agentId": decision.agent_id,
            "version": decision.version,
            "ruleId": decision.rule_id,
            "reason": decision.reason,
        },
        "tenant": explanation.tenant,
        "routingTenant": explanation.routing_tenant,
        "routingSource": explanation.routing_source,
        "rules": [_rule(rule) for rule in explanation.rules],
    }


def _rule(rule: RuleEvaluation) -> dict[str, Any]:
    return {
        "ruleId": rule.rule_id,
        "priority": rule.priority,
        "agentId": rule.agent_id,
        "version": rule.version,
        "outcome": rule.outcome,
        "reasons": [
            {
                "path": check.path,
                "field": check.field,
                "matched": check.matched,
                "explanation": str(check),
            }
            for check in rule.reasons
        ],
    }
