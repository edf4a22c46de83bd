"""What the model is told about tools and structured output: plain data, no pydantic-ai types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OutputSpec", "ToolSpec"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: a name, what it is for, and a JSON Schema object for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """Structured output, offered to the model as one more tool it calls with the final answer."""

    parameters: dict[str, Any]
    name: str = "final_result"
    description: str = "The final answer, as structured data."
