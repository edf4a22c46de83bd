"""``kind: agent``: one agent of the catalog — model, instructions, tools, sub-agents, memory,
structured output and limits — as validated data. Building an ``Agent`` from it is later work."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from runyard.models.settings import check_model_settings
from runyard.registry.memory_spec import MemorySpec, known_model
from runyard.registry.middleware.ref import MiddlewareEntry
from runyard.registry.spec_base import JsonSchema, SpecId, SpecModel, TenantId

__all__ = ["DEMO_MODEL", "GRAPH_REFERENCE", "AgentSpec", "LimitsSpec", "ToolRef"]

DEMO_MODEL = "runyard:demo"
"""The offline demo model: a graph agent's ``model`` when it names none."""


class ToolRef(SpecModel):
    """A tool the agent may call: a built-in tool, a ``kind: tool`` of the catalog, or a toolkit,
    by name, with optional parameters for its factory; ``grant`` limits a toolkit to the named
    tools (absent: all of them)."""

    name: SpecId
    parameters: dict[str, Any] = Field(default_factory=dict)
    # Left out of the dump when absent, so the versions of specs without one stay as they were.
    grant: list[SpecId] | None = Field(default=None, exclude_if=lambda grant: grant is None)


def _name_alone(value: Any) -> Any:
    """``- calculator`` is short for ``- {name: calculator}``."""
    if isinstance(value, str):
        return {"name": value}
    if not isinstance(value, dict | ToolRef):
        raise ValueError("a tool is a name, or a mapping with name and parameters")
    return value


ToolEntry = Annotated[ToolRef, BeforeValidator(_name_alone, json_schema_input_type=str | ToolRef)]


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    # The model returns structured output as the arguments of one tool call: an object.
    if schema.get("type") != "object":
        raise ValueError('an output schema must describe an object ("type": "object")')
    return schema


def _concurrency(value: Any) -> Any:
    if value == "unlimited" or (
        isinstance(value, int) and not isinstance(value, bool) and value >= 1
    ):
        return value
    raise ValueError('a positive integer, or "unlimited"')


class LimitsSpec(SpecModel):
    """What one run of the agent may use. None = no limit of that kind."""

    max_iterations: Annotated[int, Field(ge=1)] = 20
    timeout_s: Annotated[float, Field(gt=0)] | None = None
    """The whole run."""
    tool_timeout_s: Annotated[float, Field(gt=0)] | None = None
    tool_call_concurrency: Annotated[
        int | Literal["unlimited"],
        BeforeValidator(
            _concurrency,
            json_schema_input_type=Annotated[int, Field(ge=1)] | Literal["unlimited"],
        ),
    ] = 1
    """How many tool calls of one turn run at once; ``unlimited`` runs them all together."""
    max_output_tokens: Annotated[int, Field(ge=1)] | None = None
    """Summed over every model call of the run."""
    requests_per_minute: Annotated[int, Field(ge=1)] | None = None
    """New runs per minute, per tenant and agent."""
    concurrent_runs: Annotated[int, Field(ge=1)] | None = None
    """Runs running at once, per tenant and agent (a run waiting for an approval is not
    running)."""

    @model_serializer(mode="wrap")
    def _concurrent_runs_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Limits without it keep the version (content hash) they had before it existed.
        data: dict[str, Any] = handler(self)
        if self.concurrent_runs is None:
            data.pop("concurrent_runs", None)
        return data


GRAPH_REFERENCE = r"^[^:\s]+:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
"""``package.module:attribute``, or ``./file.py:attribute`` beside the catalog file, as
LangGraph Server's ``langgraph.json`` names a graph."""


class AgentSpec(SpecModel):
    """An agent definition. ``tenant`` absent = offered to every tenant; a tenant's own spec with
    the same ``id`` takes its place for that tenant."""

    kind: Literal["agent"]
    id: SpecId
    tenant: TenantId | None = None
    description: str = ""
    model: Annotated[str, AfterValidator(known_model)]
    model_settings: dict[str, Any] = Field(default_factory=dict)
    """The model's settings, by pydantic-ai's names (``temperature``, ``max_tokens``, ``thinking``,
    ``openai_reasoning_effort``, …), checked against what ``model``'s provider takes."""
    fallback_models: list[Annotated[str, AfterValidator(known_model)]] = Field(default_factory=list)
    """Models that serve a model call, in this order, when the ones before fail it at the
    provider (an HTTP error such as 429 or 503, a timeout, no connection); ``model_settings``
    go to each of them and must suit each one's provider."""
    instructions: str = ""
    tools: list[ToolEntry] = Field(default_factory=list)
    sub_agents: list[SpecId] = Field(default_factory=list)
    """Catalog agents it may delegate to or call as tools."""
    memory: MemorySpec = Field(default_factory=MemorySpec)
    output_schema: Annotated[JsonSchema, AfterValidator(_object_schema)] | None = None
    """A JSON Schema object: the run ends with structured output of this shape."""
    limits: LimitsSpec = Field(default_factory=LimitsSpec)
    middleware: list[MiddlewareEntry] = Field(default_factory=list)
    """Hooks around the agent's model calls, tool calls and streamed deltas, outermost first."""
    runtime: Literal["runyard", "langchain"] = "runyard"
    """Whose loop runs the agent: runyard's, or LangChain's ``create_agent`` graph over the same
    model, instructions, tools and memory (the ``langgraph`` extra; docs/langgraph.md)."""
    graph: Annotated[str, Field(pattern=GRAPH_REFERENCE)] | None = None
    """Your own LangGraph graph, compiled or a factory returning one, run as this agent (the
    ``langgraph`` extra; docs/langgraph.md); ``model`` then only titles threads and serves
    memory, and defaults to the offline demo model."""

    @model_validator(mode="before")
    @classmethod
    def _graph_model(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("graph") is not None and "model" not in data:
            return {**data, "model": DEMO_MODEL}
        return data

    @model_validator(mode="after")
    def _one_loop(self) -> AgentSpec:
        if self.graph is not None and self.runtime != "runyard":
            raise ValueError("graph: a graph agent runs its own graph; leave runtime out")
        return self

    @field_validator("model_settings")
    @classmethod
    def _settings_of_the_model(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        model = info.data.get("model")
        if model is None:  # the model was refused: its own error says why
            return value
        return check_model_settings(model, value)

    @field_validator("fallback_models")
    @classmethod
    def _settings_of_the_fallbacks(cls, value: list[str], info: ValidationInfo) -> list[str]:
        settings: dict[str, Any] = info.data.get("model_settings") or {}
        for model in value if settings else ():
            check_model_settings(model, settings)
        return value

    @model_serializer(mode="wrap")
    def _middleware_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # An agent without middleware, model settings or fallbacks keeps the version (content hash) it had
        # before there were any to list.
        data: dict[str, Any] = handler(self)
        if not self.middleware:
            data.pop("middleware", None)
        if not self.model_settings:
            data.pop("model_settings", None)
        if not self.fallback_models:
            data.pop("fallback_models", None)
        if self.runtime == "runyard":
            data.pop("runtime", None)
        if self.graph is None:
            data.pop("graph", None)
        return data
