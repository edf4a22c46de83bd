"""The catalog's middleware: the built-in builders, the plugins found by entry point, and an
agent's ordered list built from its spec.

Built here, above routing, because an ``approval_policy``'s ``when`` tests tool arguments with
the routing rules' own operators (``runyard.routing.check_value``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import JsonValue

from runyard.registry import (
    AgentSpec,
    ApprovalPolicyParameters,
    ArgumentTest,
    MiddlewareBuildContext,
    MiddlewareBuilder,
    MiddlewareFactories,
    PiiRedactionParameters,
    SummarisationParameters,
)
from runyard.routing import check_value, read_path
from runyard.runtime import ApprovalPolicy, Middleware, PiiRedaction, Summarisation
from runyard.runtime.middleware import DEFAULT_SUMMARY_INSTRUCTIONS

__all__ = ["BUILTIN_MIDDLEWARE", "agent_middleware", "catalog_middleware"]


class PiiRedactionBuilder:
    def build(self, parameters: Mapping[str, Any], context: MiddlewareBuildContext) -> Middleware:
        params = PiiRedactionParameters.model_validate(dict(parameters))
        return PiiRedaction(
            kinds=params.kinds, patterns=params.patterns, hold_chars=params.hold_chars
        )


class SummarisationBuilder:
    def build(self, parameters: Mapping[str, Any], context: MiddlewareBuildContext) -> Middleware:
        params = SummarisationParameters.model_validate(dict(parameters))
        return Summarisation(
            max_messages=params.max_messages,
            max_tokens=params.max_tokens,
            keep_last=params.keep_last,
            model=context.resolve_model(params.model) if params.model else None,
            instructions=params.instructions or DEFAULT_SUMMARY_INSTRUCTIONS,
        )


class ApprovalPolicyBuilder:
    def build(self, parameters: Mapping[str, Any], context: MiddlewareBuildContext) -> Middleware:
        params = ApprovalPolicyParameters.model_validate(dict(parameters))
        tests = params.tests

        def when(args: dict[str, Any]) -> bool:
            return _all_hold(tests, args)

        return ApprovalPolicy(
            params.tool, tool_regex=params.tool_regex, when=when if tests else None
        )


def _all_hold(tests: list[ArgumentTest], args: dict[str, JsonValue]) -> bool:
    return all(
        check_value(test, read_path(args, test.field), f"when[{index}]").matched
        for index, test in enumerate(tests)
    )


BUILTIN_MIDDLEWARE: dict[str, MiddlewareBuilder] = {
    "pii_redaction": PiiRedactionBuilder(),
    "summarisation": SummarisationBuilder(),
    "approval_policy": ApprovalPolicyBuilder(),
}
"""The middleware runyard ships; the registry's ``BUILTIN_MIDDLEWARE_PARAMETERS`` names the same."""


@cache
def catalog_middleware() -> MiddlewareFactories:
    """The built-ins plus the installed ``runyard.middleware`` entry points, discovered once."""
    return MiddlewareFactories.discover(BUILTIN_MIDDLEWARE)


def agent_middleware(
    spec: AgentSpec, context: MiddlewareBuildContext, factories: MiddlewareFactories | None = None
) -> list[Middleware]:
    """The spec's middleware, built in its order (``ConfigurationError`` for a bad entry)."""
    found = catalog_middleware() if factories is None else factories
    return [found.build(ref, context) for ref in spec.middleware]
