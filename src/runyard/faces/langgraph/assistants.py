"""``/langgraph/assistants``: the caller's served agents as LangGraph assistants — ``search``,
``count``, ``get``, and the graph and schema reads of the SDK's helpers.

An assistant is a catalog agent (``assistant`` without a catalog): ``assistant_id`` and
``graph_id`` are its id; ``agent@<version>`` names one version. Every runyard agent has the graph
of LangChain's ``create_agent``: ``__start__`` → ``model`` ⇄ ``tools`` → ``__end__``, and the state
``{"messages": [...]}``. Creating, updating and deleting assistants is the catalog's business (its
files or ``/v1/admin``), so those routes are not served.
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``assistant_routes``.

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from runyard.faces.langgraph.error_shape import langgraph_errors
from runyard.faces.langgraph.path_ids import AssistantId
from runyard.faces.langgraph.refusals import AssistantNotFound
from runyard.faces.langgraph.thread_state import iso_time
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServedAgent, ServiceParts

__all__ = ["assistant_routes"]


_MESSAGES_STATE: dict[str, Any] = {
    "title": "AgentState",
    "type": "object",
    "properties": {
        "messages": {
            "title": "Messages",
            "type": "array",
            "items": {"type": "object", "description": "a LangChain message dict"},
        }
    },
    "required": ["messages"],
}


class AssistantSearch(BaseModel):
    """``assistants.search`` / ``count``."""

    model_config = ConfigDict(extra="ignore", strict=True)

    metadata: dict[str, Any] | None = None
    graph_id: str | None = None
    name: str | None = None
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["assistant_id", "graph_id", "name", "created_at", "updated_at"] | None = None
    sort_order: Literal["asc", "desc"] | None = None
    select: list[str] | None = None


def assistant_body(agent: ServedAgent, version: str | None = None) -> dict[str, Any]:
    """An ``Assistant``."""
    metadata = {
        "created_by": "runyard",
        "default": agent.default,
        "model": agent.model,
        "tools": list(agent.tools),
        "tenant": agent.tenant,
        "runyard_version": version or agent.version,
    }
    return {
        "assistant_id": agent.name if version is None else f"{agent.name}@{version}",
        "graph_id": agent.name,
        "name": agent.name,
        "description": agent.description or None,
        "config": {},
        "context": {},
        "metadata": metadata,
        "version": 1,
        "created_at": iso_time(0),
        "updated_at": iso_time(0),
    }


def served_agent(parts: ServiceParts, owner: Owner, assistant_id: str) -> ServedAgent:
    """The served agent ``assistant_id`` names (``agent@version`` too); 404 otherwise."""
    name = assistant_id.partition("@")[0]
    for agent in parts.agents.served(owner.tenant_id):
        if agent.name == name:
            return agent
    raise AssistantNotFound(assistant_id)


def graph(agent: ServedAgent) -> dict[str, Any]:
    """``create_agent``'s graph, as ``get_graph`` draws it."""
    nodes: list[dict[str, Any]] = [
        {"id": "__start__", "type": "schema", "data": "__start__"},
        {"id": "model", "type": "runnable", "data": {"id": ["runyard", "agent"], "name": "model"}},
    ]
    edges: list[dict[str, Any]] = [{"source": "__start__", "target": "model"}]
    if agent.tools:
        tools = {"id": ["runyard", "tools"], "name": "tools", "tools": list(agent.tools)}
        nodes.append({"id": "tools", "type": "runnable", "data": tools})
        edges += [
            {"source": "model", "target": "tools", "conditional": True},
            {"source": "tools", "target": "model"},
        ]
    nodes.append({"id": "__end__", "type": "schema", "data": "__end__"})
    edges.append({"source": "model", "target": "__end__", "conditional": True})
    return {"nodes": nodes, "edges": edges}


def _matches(agent: ServedAgent, search: AssistantSearch) -> bool:
    body = assistant_body(agent)
    if search.graph_id is not None and agent.name != search.graph_id:
        return False
    if search.name is not None and search.name not in agent.name:
        return False
    wanted = search.metadata or {}
    return all(body["metadata"].get(key) == value for key, value in wanted.items())


def assistant_routes(api: APIRouter, wiring: FaceWiring) -> None:
    """Add the assistant routes to ``api``."""
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    errors = langgraph_errors(wiring.errors)(400, 401, 404, 422, 503)

    @api.post("/assistants/search", responses=errors)
    async def search_assistants(
        body: AssistantSearch, parts: parts_dep, owner: owner_dep
    ) -> list[dict[str, Any]]:
        """The caller's agents as assistants, the default first (``graph_id``, ``name`` — a
        substring —, ``metadata`` filter; ``sort_by``/``sort_order``, ``limit``/``offset``)."""
        found = [a for a in parts.agents.served(owner.tenant_id) if _matches(a, body)]
        bodies = [assistant_body(a) for a in found]
        if body.sort_by is not None:
            key = body.sort_by
            bodies.sort(key=lambda b: str(b[key]), reverse=body.sort_order == "desc")
        page = bodies[body.offset : body.offset + body.limit]
        if body.select:
            return [{k: v for k, v in b.items() if k in body.select} for b in page]
        return page

    @api.post("/assistants/count", responses=errors)
    async def count_assistants(body: AssistantSearch, parts: parts_dep, owner: owner_dep) -> int:
        """How many of the caller's agents match (``search``'s filters)."""
        return sum(_matches(a, body) for a in parts.agents.served(owner.tenant_id))

    @api.get("/assistants/{assistant_id:langgraph_name}", responses=errors)
    async def get_assistant(
        assistant_id: AssistantId, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """One agent as an assistant; 404 when the caller's tenant has none of that id."""
        version = assistant_id.partition("@")[2] or None
        return assistant_body(served_agent(parts, owner, assistant_id), version)

    @api.get("/assistants/{assistant_id:langgraph_name}/graph", responses=errors)
    async def get_graph(
        assistant_id: AssistantId,
        parts: parts_dep,
        owner: owner_dep,
        xray: Annotated[str | None, Query(description="accepted: there are no subgraphs")] = None,
    ) -> dict[str, Any]:
        """The agent's graph: ``create_agent``'s nodes and edges."""
        return graph(served_agent(parts, owner, assistant_id))

    @api.get("/assistants/{assistant_id:langgraph_name}/schemas", responses=errors)
    async def get_schemas(
        assistant_id: AssistantId, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """The agent's state, input and output schemas (``{"messages": [...]}``); no config or
        context schema (a runyard agent's settings are its catalog spec)."""
        agent = served_agent(parts, owner, assistant_id)
        return {
            "graph_id": agent.name,
            "input_schema": _MESSAGES_STATE,
            "output_schema": _MESSAGES_STATE,
            "state_schema": _MESSAGES_STATE,
            "config_schema": None,
            "context_schema": None,
        }

    @api.get("/assistants/{assistant_id:langgraph_name}/subgraphs", responses=errors)
    async def get_subgraphs(
        assistant_id: AssistantId,
        parts: parts_dep,
        owner: owner_dep,
        recurse: bool = False,
    ) -> dict[str, Any]:
        """None: a runyard agent's sub-agents are spawned at run time, not subgraphs."""
        served_agent(parts, owner, assistant_id)
        return {}
