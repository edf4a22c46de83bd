"""``Tool`` and the ``@tool`` decorator.

A tool is a name, a description, an argument schema the model sees, and a function. Approval is a
policy wrapped around the call (``runyard.tools.approval``), never a branch in the loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, overload

from pydantic import BaseModel

from runyard.errors import ConfigurationError
from runyard.messages import CustomMessage
from runyard.tools.context import ToolContext
from runyard.tools.signature import read_signature
from runyard.tools.validation import ModelValidator, Validator, validator_for

__all__ = ["IS_FROM_TOOLKIT", "SOURCE_NODE_NAME", "NeedsApproval", "Tool", "tool"]

SOURCE_NODE_NAME = "source_node_name"
"""``Tool.metadata`` key: the catalog entry that built the tool."""
IS_FROM_TOOLKIT = "is_from_toolkit"
"""``Tool.metadata`` key: whether a toolkit built it."""

NeedsApproval = Callable[[dict[str, Any]], bool | Awaitable[bool]]


@dataclass(frozen=True, eq=False)
class Tool:
    """A callable the model may use. Build one with ``@tool`` or ``Tool.from_function``."""

    name: str
    description: str
    function: Callable[..., Any]
    args_validator: Validator
    context_param: str | None = None
    requires_approval: bool = False
    needs_approval: NeedsApproval | None = None
    resume_validator: Validator | None = None
    suspend_validator: Validator | None = None
    timeout: float | None = None
    to_model_output: Callable[[Any], Any] | None = None
    to_message: Callable[[Any], CustomMessage | None] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    retry_safe: bool = False
    """True when running a call twice is harmless (it reads, or its effect is idempotent): a
    run taken over after its server died runs again a call of it that was in flight, where
    any other tool's call ends as an error telling the model its effect is unverified."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, as the model sees it."""
        return self.args_validator.json_schema

    @property
    def resume_schema(self) -> dict[str, Any] | None:
        return self.resume_validator.json_schema if self.resume_validator else None

    @property
    def gated(self) -> bool:
        """True when some calls must be approved by a person before they run."""
        return self.requires_approval or self.needs_approval is not None

    def validate_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """Validated arguments; raises ``ValueError`` describing what is wrong."""
        value = self.args_validator.validate(args)
        return dict(value)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        """Run the function with validated ``args``; sync functions run in a worker thread."""
        kwargs = dict(args)
        if self.context_param is not None:
            kwargs[self.context_param] = ctx
        if inspect.iscoroutinefunction(self.function):
            return await self.function(**kwargs)
        result = await asyncio.to_thread(self.function, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result

    def renamed(self, name: str) -> Tool:
        return replace(self, name=name)

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
        requires_approval: bool = False,
        needs_approval: NeedsApproval | None = None,
        resume_schema: type[BaseModel] | dict[str, Any] | None = None,
        suspend_schema: type[BaseModel] | dict[str, Any] | None = None,
        timeout: float | None = None,
        to_model_output: Callable[[Any], Any] | None = None,
        to_message: Callable[[Any], CustomMessage | None] | None = None,
        retry_safe: bool = False,
    ) -> Tool:
        tool_name = name or function.__name__
        signature = read_signature(function, tool_name, with_args=parameters is None)
        args_validator: Validator = (
            ModelValidator(signature.args_model, dump=True)
            if signature.args_model is not None
            else validator_for(parameters or {})
        )
        text = description if description is not None else signature.description
        if not text:
            raise ConfigurationError(f"Tool {tool_name!r} needs a description (or a docstring)")
        if (requires_approval or needs_approval) and (resume_schema or suspend_schema):
            raise ConfigurationError(
                f"Tool {tool_name!r}: approval and suspend/resume schemas cannot be combined"
            )
        if timeout is not None and timeout <= 0:
            raise ConfigurationError(f"Tool {tool_name!r}: timeout must be positive")
        return cls(
            name=tool_name,
            description=text,
            function=function,
            args_validator=args_validator,
            context_param=signature.context_param,
            requires_approval=requires_approval,
            needs_approval=needs_approval,
            resume_validator=validator_for(resume_schema) if resume_schema else None,
            suspend_validator=validator_for(suspend_schema) if suspend_schema else None,
            timeout=timeout,
            to_model_output=to_model_output,
            to_message=to_message,
            retry_safe=retry_safe,
        )


@overload
def tool(function: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
    requires_approval: bool = False,
    needs_approval: NeedsApproval | None = None,
    resume_schema: type[BaseModel] | dict[str, Any] | None = None,
    suspend_schema: type[BaseModel] | dict[str, Any] | None = None,
    timeout: float | None = None,
    to_model_output: Callable[[Any], Any] | None = None,
    to_message: Callable[[Any], CustomMessage | None] | None = None,
    retry_safe: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    **options: Any,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a ``Tool`` from a sync or async function.

    The docstring is the description; arguments are validated by pydantic from the signature
    (or by ``parameters``, an explicit JSON Schema). A parameter annotated ``ToolContext`` is
    injected, not shown to the model. ``retry_safe=True`` declares that running a call again
    is harmless (``Tool.retry_safe``).
    """
    if function is not None:
        return Tool.from_function(function)

    def decorate(fn: Callable[..., Any]) -> Tool:
        return Tool.from_function(fn, **options)

    return decorate
