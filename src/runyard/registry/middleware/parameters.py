"""The parameters of the built-in middleware, validated when the catalog loads.

Only the data lives here (STYLE.md §6); ``runyard.service`` builds the runtime middleware from
it. An approval policy's ``when`` tests a tool call's arguments with the operators routing
rules use (``runyard.registry.conditions``): ``{field: amount, gt: 100}``, or a list of such
tests that must all hold.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StringConstraints, model_validator

from runyard.registry.conditions import FieldTest
from runyard.registry.memory_spec import known_model
from runyard.registry.spec_base import SpecModel

__all__ = [
    "BUILTIN_MIDDLEWARE_PARAMETERS",
    "ApprovalPolicyParameters",
    "ArgumentTest",
    "PiiRedactionParameters",
    "SummarisationParameters",
]

ARGUMENT_PATH_PATTERN = r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$"


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from exc
    return pattern


Regex = Annotated[str, AfterValidator(_compiles)]


class PiiRedactionParameters(SpecModel):
    """``pii_redaction``: which built-in kinds (all when absent), extra ``{kind: regex}``
    patterns, and how many characters of a stream are held back to catch a split match."""

    kinds: list[Literal["email", "phone", "card", "iban"]] | None = None
    patterns: dict[Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_]+$")], Regex] = Field(
        default_factory=dict
    )
    hold_chars: Annotated[int, Field(ge=1, le=4096)] = 64


class SummarisationParameters(SpecModel):
    """``summarisation``: summarise when a model call would send more than ``max_messages``
    messages or about ``max_tokens`` tokens, keeping the last ``keep_last``; ``model`` writes the
    summary (the agent's own when absent)."""

    max_messages: Annotated[int, Field(ge=2)] | None = None
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    keep_last: Annotated[int, Field(ge=1)] = 6
    model: Annotated[str, AfterValidator(known_model)] | None = None
    instructions: str | None = None

    @model_validator(mode="after")
    def _triggered(self) -> SummarisationParameters:
        if self.max_messages is None and self.max_tokens is None:
            raise ValueError("give max_messages, max_tokens or both")
        if self.max_messages is not None and self.keep_last >= self.max_messages:
            raise ValueError("keep_last must be below max_messages")
        return self


class ArgumentTest(FieldTest):
    """One argument of a tool call compared with one operator: ``{field: amount, gt: 100}``;
    a dotted path reads nested objects (``to.country``)."""

    field: Annotated[str, StringConstraints(pattern=ARGUMENT_PATH_PATTERN)]


class ApprovalPolicyParameters(SpecModel):
    """``approval_policy``: the tools it covers, by ``tool`` (a glob, ``http_*``) or
    ``tool_regex``, and optionally ``when`` their arguments need approval (else every call)."""

    tool: str | None = None
    tool_regex: Regex | None = None
    when: ArgumentTest | list[ArgumentTest] | None = None

    @model_validator(mode="after")
    def _one_way_to_name_tools(self) -> ApprovalPolicyParameters:
        if (self.tool is None) == (self.tool_regex is None):
            raise ValueError("give exactly one of tool or tool_regex")
        return self

    @property
    def tests(self) -> list[ArgumentTest]:
        """``when`` as a list of tests that must all hold (empty: every call)."""
        if self.when is None:
            return []
        return self.when if isinstance(self.when, list) else [self.when]


BUILTIN_MIDDLEWARE_PARAMETERS: dict[str, type[SpecModel]] = {
    "pii_redaction": PiiRedactionParameters,
    "summarisation": SummarisationParameters,
    "approval_policy": ApprovalPolicyParameters,
}
"""The built-in middleware by name, each with the model its ``parameters`` must fit."""
