"""Middleware in the catalog: an agent's ``middleware:`` entries, the built-ins' parameters, and
the builders found by name (built-ins and the ``runyard.middleware`` entry points).

The middleware itself is runtime code (``runyard.runtime.middleware``); the service builds it
from these specs when it compiles an agent (docs/catalog.md, "Middleware").
"""

from runyard.registry.middleware.factories import (
    MIDDLEWARE_ENTRY_POINT_GROUP,
    MiddlewareBuildContext,
    MiddlewareBuilder,
    MiddlewareFactories,
    installed_middleware,
)
from runyard.registry.middleware.parameters import (
    BUILTIN_MIDDLEWARE_PARAMETERS,
    ApprovalPolicyParameters,
    ArgumentTest,
    PiiRedactionParameters,
    SummarisationParameters,
)
from runyard.registry.middleware.ref import (
    ApprovalPolicyRef,
    MiddlewareEntry,
    MiddlewareRef,
    PiiRedactionRef,
    PluginMiddlewareRef,
    SummarisationRef,
)

__all__ = [
    "BUILTIN_MIDDLEWARE_PARAMETERS",
    "MIDDLEWARE_ENTRY_POINT_GROUP",
    "ApprovalPolicyParameters",
    "ApprovalPolicyRef",
    "ArgumentTest",
    "MiddlewareBuildContext",
    "MiddlewareBuilder",
    "MiddlewareEntry",
    "MiddlewareFactories",
    "MiddlewareRef",
    "PiiRedactionParameters",
    "PiiRedactionRef",
    "PluginMiddlewareRef",
    "SummarisationParameters",
    "SummarisationRef",
    "installed_middleware",
]
