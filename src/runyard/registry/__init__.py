"""The catalog: agents, tools and routing defined as data (YAML files today), validated, versioned.

``load_catalog(path, known_tools=...)`` reads a directory of YAML files into an immutable
``Catalog`` and a list of rejected files, each error naming its file, line and field. Specs are
pydantic models (``AgentSpec``, ``ToolInstanceSpec``, ``RoutingSpec``); each version is the
content hash of its canonical JSON. See docs/catalog.md for the format. Tool factories, their
dependency injection and toolkits live in ``runyard.registry.tools`` (docs/tools.md).

Layer 5: imports layers 0 to 4 only, and neither ``runyard.protocol`` nor ``runyard.routing``.
"""

from runyard.registry.agent_spec import AgentSpec, LimitsSpec, ToolRef
from runyard.registry.catalog import Catalog, CatalogEntry, ScopedKey
from runyard.registry.conditions import AllOf, AnyOf, Condition, FieldTest, Not, Operator
from runyard.registry.errors import CatalogError, RejectedFile
from runyard.registry.loader import CATALOG_SUFFIXES, CatalogLoad, catalog_files, load_catalog
from runyard.registry.memory_spec import (
    MemorySpec,
    ObservationalSpec,
    SemanticRecallSpec,
    TitlesSpec,
    WorkingMemorySpec,
)
from runyard.registry.middleware import (
    MIDDLEWARE_ENTRY_POINT_GROUP,
    ApprovalPolicyParameters,
    ArgumentTest,
    MiddlewareBuildContext,
    MiddlewareBuilder,
    MiddlewareFactories,
    MiddlewareRef,
    PiiRedactionParameters,
    SummarisationParameters,
    installed_middleware,
)
from runyard.registry.references import reference_errors
from runyard.registry.routing_spec import RoutingRule, RoutingSpec
from runyard.registry.spec_base import SPEC_ID_PATTERN
from runyard.registry.specs import SPEC_KINDS, CatalogSpec, canonical_json, content_hash
from runyard.registry.tool_spec import ToolInstanceSpec

__all__ = [
    "MIDDLEWARE_ENTRY_POINT_GROUP",
    "CATALOG_SUFFIXES",
    "SPEC_ID_PATTERN",
    "SPEC_KINDS",
    "AgentSpec",
    "AllOf",
    "AnyOf",
    "ApprovalPolicyParameters",
    "ArgumentTest",
    "Catalog",
    "CatalogEntry",
    "CatalogError",
    "CatalogLoad",
    "CatalogSpec",
    "Condition",
    "FieldTest",
    "LimitsSpec",
    "MemorySpec",
    "MiddlewareBuildContext",
    "MiddlewareBuilder",
    "MiddlewareFactories",
    "MiddlewareRef",
    "Not",
    "ObservationalSpec",
    "Operator",
    "PiiRedactionParameters",
    "RejectedFile",
    "RoutingRule",
    "RoutingSpec",
    "ScopedKey",
    "SemanticRecallSpec",
    "SummarisationParameters",
    "TitlesSpec",
    "ToolInstanceSpec",
    "ToolRef",
    "WorkingMemorySpec",
    "canonical_json",
    "catalog_files",
    "content_hash",
    "installed_middleware",
    "load_catalog",
    "reference_errors",
]
