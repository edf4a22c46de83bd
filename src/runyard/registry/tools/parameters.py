"""``factory_parameters``: a spec's parameters validated against a factory's pydantic model.

Every factory reports bad parameters the same way, naming the tool, the factory and each field:
``tool 'fetch' (http_request): max_response_bytes: Input should be greater than 0``.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from runyard.errors import ConfigurationError
from runyard.registry.tools.build_context import BuildContext

__all__ = ["factory_parameters"]

P = TypeVar("P", bound=BaseModel)


def factory_parameters(model: type[P], context: BuildContext, factory: str) -> P:
    """``context.parameters`` as ``model``; a ``ConfigurationError`` names every bad field."""
    try:
        return model.model_validate(dict(context.parameters))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'parameters'}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigurationError(f"tool {context.name!r} ({factory}): {problems}") from exc
