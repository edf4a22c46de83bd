"""An agent's ``middleware:`` entry: a middleware by name, with the parameters it is built from.

A built-in's parameters are validated with the agent (a fault names its file, line and field);
a plugin's are the plugin's business, checked when the agent is built.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag

from runyard.registry.middleware.parameters import (
    ApprovalPolicyParameters,
    PiiRedactionParameters,
    SummarisationParameters,
)
from runyard.registry.spec_base import SpecId, SpecModel

__all__ = [
    "ApprovalPolicyRef",
    "MiddlewareEntry",
    "MiddlewareRef",
    "PiiRedactionRef",
    "PluginMiddlewareRef",
    "SummarisationRef",
]


_BUILTIN_NAMES = ("pii_redaction", "summarisation", "approval_policy")


class PluginMiddlewareRef(SpecModel):
    """Middleware a package installs (entry point group ``runyard.middleware``), by its name."""

    # Not a built-in's name: in the JSON Schema each entry then fits exactly one shape.
    name: Annotated[SpecId, Field(json_schema_extra={"not": {"enum": list(_BUILTIN_NAMES)}})]
    parameters: dict[str, Any] = Field(default_factory=dict)


class PiiRedactionRef(SpecModel):
    name: Literal["pii_redaction"]
    parameters: PiiRedactionParameters = Field(default_factory=PiiRedactionParameters)


class SummarisationRef(SpecModel):
    name: Literal["summarisation"]
    parameters: SummarisationParameters


class ApprovalPolicyRef(SpecModel):
    name: Literal["approval_policy"]
    parameters: ApprovalPolicyParameters


def _tag(value: Any) -> str:
    name = value.get("name") if isinstance(value, dict) else getattr(value, "name", None)
    return name if name in _BUILTIN_NAMES else "plugin"


def _name_alone(value: Any) -> Any:
    """``- pii_redaction`` is short for ``- {name: pii_redaction}``."""
    if isinstance(value, str):
        return {"name": value}
    if not isinstance(value, dict | SpecModel):
        raise ValueError("a middleware is a name, or a mapping with name and parameters")
    return value


MiddlewareRef = Annotated[
    Annotated[PiiRedactionRef, Tag("pii_redaction")]
    | Annotated[SummarisationRef, Tag("summarisation")]
    | Annotated[ApprovalPolicyRef, Tag("approval_policy")]
    | Annotated[PluginMiddlewareRef, Tag("plugin")],
    Discriminator(_tag),
]
"""One middleware of an agent's ordered list: a built-in or a plugin's, by ``name``."""

MiddlewareEntry = Annotated[
    MiddlewareRef, BeforeValidator(_name_alone, json_schema_input_type=str | MiddlewareRef)
]
