"""``GET /metrics``: this process's metrics in the Prometheus text format.

Open unless ``RUNYARD_METRICS_TOKEN`` is set; then a scraper sends ``Authorization: Bearer
<token>`` (docs/security.md, "Metrics"). Each process (worker, replica) exposes its own counts.
"""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from fastapi.responses import Response

from runyard.http.bodies import ErrorBody
from runyard.http.errors import ApiError
from runyard.http.openapi import METRICS_PATH
from runyard.http.state import AppState
from runyard.observability import CONTENT_TYPE, Metrics
from runyard.registry import Catalog

__all__ = ["router"]

router = APIRouter(tags=["meta"])

_EXAMPLE = (
    "# HELP runyard_streams_open Event streams open to clients\n# TYPE runyard_streams_open gauge\n"
)


@router.get(
    METRICS_PATH,
    response_class=Response,
    responses={
        200: {
            "description": "the Prometheus text exposition format",
            "content": {
                CONTENT_TYPE.split(";")[0]: {"schema": {"type": "string"}, "example": _EXAMPLE}
            },
        },
        401: {
            "model": ErrorBody,
            "description": "RUNYARD_METRICS_TOKEN is set and the request does not send it as "
            "`Authorization: Bearer <token>` (`metrics_unauthorized`)",
        },
    },
)
async def metrics(request: Request) -> Response:
    """Counters, gauges and histograms of this process: runs, model calls (tokens, cost,
    latency), tool calls, routing, the catalog, event streams, the event log and HTTP requests
    (docs/observability.md lists each)."""
    state: AppState = request.app.state.runyard
    _authorize(request, state.settings.metrics_token)
    if state.parts is not None and state.parts.catalog is not None:
        _count_nodes(state.metrics, state.parts.catalog.catalog)
    return Response(state.metrics.render(), media_type=CONTENT_TYPE)


def _authorize(request: Request, token: str) -> None:
    if not token:
        return
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.encode(), token.encode()):
        raise ApiError(
            401,
            "metrics_unauthorized",
            # Not "Authorization: Bearer <…>": the response redactor would blank that.
            "GET /metrics needs the header Authorization with the value Bearer and the "
            "RUNYARD_METRICS_TOKEN",
            headers={"WWW-Authenticate": "Bearer"},
        )


def _count_nodes(metrics: Metrics, catalog: Catalog) -> None:
    """The catalog's size now: read at scrape time, so it is never stale after a reload."""
    gauge = metrics.registry_nodes
    gauge.labels("agent").set(len(catalog.agents))
    gauge.labels("tool").set(len(catalog.tools))
    gauge.labels("routing").set(len(catalog.routing))
