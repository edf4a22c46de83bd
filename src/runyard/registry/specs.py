"""The three kinds of catalog spec, and the content hash that versions each one.

A version is the SHA-256 of the spec's canonical JSON: the validated value (defaults filled in,
``- calculator`` spelled out as ``{name: calculator, parameters: {}}``), keys sorted, no spaces.
Two files that mean the same thing get the same version, whatever their layout or comments.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated

from pydantic import Field

from runyard.registry.agent_spec import AgentSpec
from runyard.registry.routing_spec import RoutingSpec
from runyard.registry.tool_spec import ToolInstanceSpec

__all__ = ["SPEC_KINDS", "CatalogSpec", "CatalogSpecDocument", "canonical_json", "content_hash"]

CatalogSpec = AgentSpec | ToolInstanceSpec | RoutingSpec

CatalogSpecDocument = Annotated[CatalogSpec, Field(discriminator="kind")]
"""One YAML document of a catalog file, told apart by its ``kind``."""

SPEC_KINDS: dict[str, type[CatalogSpec]] = {
    "agent": AgentSpec,
    "tool": ToolInstanceSpec,
    "routing": RoutingSpec,
}


def canonical_json(spec: CatalogSpec) -> str:
    """The spec as JSON with sorted keys and no whitespace: the input of its content hash."""
    data = spec.model_dump(mode="json", by_alias=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(spec: CatalogSpec) -> str:
    """The version of a spec: the hex SHA-256 of its canonical JSON."""
    return hashlib.sha256(canonical_json(spec).encode()).hexdigest()
