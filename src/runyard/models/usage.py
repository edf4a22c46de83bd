"""Token usage and cost of model calls, and how one finished pydantic-ai response is priced."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelResponse

__all__ = ["Usage", "response_cost", "usage_from_response"]


@dataclass(slots=True)
class Usage:
    """Tokens and money spent; ``cost`` is USD, ``None`` when no price is known."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    requests: int = 0
    models: tuple[str, ...] = ()
    """The models (``provider:model``) that answered these calls, in the order each first
    answered: more than one when a fallback model served a call (``runyard.models.fallback``)."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        """The sum of both; a cost is unknown only when both sides are unknown."""
        if self.cost is None and other.cost is None:
            cost = None
        else:
            cost = (self.cost or 0.0) + (other.cost or 0.0)
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cost=cost,
            requests=self.requests + other.requests,
            models=_merged(self.models, other.models),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, ``total_tokens`` included."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost": self.cost,
            "requests": self.requests,
            "models": list(self.models),
        }


def _merged(first: tuple[str, ...], then: tuple[str, ...]) -> tuple[str, ...]:
    if first == then or not then:  # the usual case: every call answered by the same model
        return first
    return first + tuple(model for model in then if model not in first)


def usage_from_response(response: ModelResponse, model: str | None = None) -> Usage:
    """The usage of one model call, priced with :func:`response_cost`; ``model`` is the label
    of the model that answered it."""
    usage = response.usage
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens + usage.cache_write_1h_tokens,
        reasoning_tokens=usage.output_reasoning_tokens,
        cost=response_cost(response),
        requests=1,
        models=(model,) if model else (),
    )


def response_cost(response: ModelResponse) -> float | None:
    """USD for one response: the provider's own figure when it sent one, else the genai-prices catalog.

    The catalog is offline. A model it does not know (a local server, a test model) or a
    response without usage has an unknown cost (``None``), never an error.
    """
    if response.usage.cost is not None:
        return float(response.usage.cost)
    if not response.model_name:
        return None
    try:
        return float(response.cost().total_price)
    except (LookupError, ValueError):
        return None
