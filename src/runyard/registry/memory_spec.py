"""``memory`` of an agent spec: which memory tiers the agent gets, and how each is set.

Every tier is off unless the spec turns it on: ``true`` for its defaults, or a mapping with
settings. Omitted settings fall back to the server's ``RUNYARD_*`` values when the agent is built.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from runyard.errors import ConfigurationError
from runyard.models import check_embedder_name, check_model_name
from runyard.registry.spec_base import JsonSchema, SpecModel

__all__ = [
    "MemorySpec",
    "ObservationalSpec",
    "SemanticRecallSpec",
    "TitlesSpec",
    "WorkingMemorySpec",
    "known_embedder",
    "known_model",
]


def known_model(name: str) -> str:
    """``name`` when ``resolve_model`` would accept it, else a validation error saying why."""
    try:
        check_model_name(name)
    except ConfigurationError as exc:
        raise ValueError(str(exc)) from exc
    return name


def known_embedder(name: str) -> str:
    """``name`` when ``resolve_embedder`` would accept it, else a validation error saying why."""
    try:
        check_embedder_name(name)
    except ConfigurationError as exc:
        raise ValueError(str(exc)) from exc
    return name


ModelName = Annotated[str, AfterValidator(known_model)]
EmbedderName = Annotated[str, AfterValidator(known_embedder)]
Scope = Literal["thread", "resource"]


class SemanticRecallSpec(SpecModel):
    """Recall of similar past messages; ``embedder`` None = the server's ``RUNYARD_EMBEDDER_MODEL``
    (and recall stays off when the server has none)."""

    embedder: EmbedderName | None = None
    top_k: Annotated[int, Field(ge=1)] | None = None
    before: Annotated[int, Field(ge=0)] = 2
    after: Annotated[int, Field(ge=0)] = 1
    scope: Scope = "thread"


class WorkingMemorySpec(SpecModel):
    """A document the agent keeps about the user (``resource``) or the thread."""

    scope: Scope = "resource"
    template: str | None = None
    json_schema: JsonSchema | None = Field(default=None, alias="schema")
    """Makes the document structured JSON; updates that do not match it are refused."""
    instruction: str | None = None


class ObservationalSpec(SpecModel):
    """Observer and reflector; None values = the server's ``RUNYARD_OBSERVER_*`` settings."""

    model: ModelName | None = None
    observer_message_tokens: Annotated[int, Field(ge=1)] | None = None
    reflector_observation_tokens: Annotated[int, Field(ge=1)] | None = None


class TitlesSpec(SpecModel):
    """Thread titles; ``model`` None = the agent's own model."""

    model: ModelName | None = None


def _switch(value: Any) -> Any:
    """``true`` = the tier with its defaults, ``false`` = off (stored as null)."""
    if value is True:
        return {}
    if value is False:
        return None
    return value


class MemorySpec(SpecModel):
    """The memory tiers of one agent. ``last_messages`` None = ``RUNYARD_LAST_MESSAGES``."""

    last_messages: Annotated[int, Field(ge=0)] | None = None
    semantic_recall: Annotated[
        SemanticRecallSpec | None,
        BeforeValidator(_switch, json_schema_input_type=bool | SemanticRecallSpec | None),
    ] = None
    working_memory: Annotated[
        WorkingMemorySpec | None,
        BeforeValidator(_switch, json_schema_input_type=bool | WorkingMemorySpec | None),
    ] = None
    observational: Annotated[
        ObservationalSpec | None,
        BeforeValidator(_switch, json_schema_input_type=bool | ObservationalSpec | None),
    ] = None
    titles: Annotated[
        TitlesSpec | None,
        BeforeValidator(_switch, json_schema_input_type=bool | TitlesSpec | None),
    ] = None
