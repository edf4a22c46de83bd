"""Turns a Python function into a tool's arguments model and description.

Arguments come from the signature (types and defaults, validated by pydantic); the description and
per-argument descriptions come from the docstring (Google style ``Args:`` section).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from runyard.errors import ConfigurationError
from runyard.tools.context import ToolContext

__all__ = ["FunctionSignature", "read_signature"]

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Raises|Yields|Examples?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    description: str
    args_model: type[BaseModel] | None
    context_param: str | None


def read_signature(
    fn: Callable[..., Any], name: str, *, with_args: bool = True
) -> FunctionSignature:
    """Build the arguments model of ``fn``; a ``ToolContext`` parameter is left out of it.

    ``with_args=False`` is for tools with an explicit JSON Schema: the function then takes the
    validated arguments as keywords (often ``**kwargs``) and no model is built.
    """
    summary, arg_docs = _parse_docstring(inspect.getdoc(fn) or "")
    hints = get_type_hints(fn, include_extras=True)  # keeps Annotated[int, Field(ge=0)] limits
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for param in inspect.signature(fn).parameters.values():
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            context_param = param.name
            continue
        if not with_args:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigurationError(f"Tool {name!r}: *args and **kwargs cannot be tool arguments")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
    if not with_args:
        return FunctionSignature(summary, None, context_param)
    model = create_model(f"{_camel(name)}Args", __config__=ConfigDict(extra="forbid"), **fields)
    return FunctionSignature(summary, model, context_param)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in doc.splitlines():
        heading = _SECTION.match(line)
        if heading:
            section, current = heading.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            match = _ARG_LINE.match(line)
            if match and not line.startswith("        "):
                current = match.group(1).lstrip("*")
                args[current] = match.group(2).strip()
            elif current and line.strip():
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), args


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^0-9a-zA-Z]+", name) if part)
