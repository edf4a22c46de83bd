"""``meant_field``: the field a misspelt key of a catalog document most likely stands for.

It reads the spec models' own fields (and their aliases), so a new field is suggested the day it
exists; it never guesses across models: ``limits.max_iteration`` is compared with the fields of
the limits, not with the agent's.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any, get_args

from pydantic import BaseModel

from runyard.registry.yaml_documents import FieldPath

__all__ = ["meant_field"]

# difflib's default: close enough that a suggestion reads as a typo, not as a riddle.
_CUTOFF = 0.6


def meant_field(model: type[BaseModel], path: FieldPath) -> str | None:
    """The field of the model at ``path[:-1]`` whose name is closest to the unknown key
    ``path[-1]``; None when no field is close."""
    if not path or not isinstance(path[-1], str):
        return None
    models = [model]
    for part in path[:-1]:
        if isinstance(part, str):  # list indexes leave the item models in place
            models = [inner for outer in models for inner in _field_models(outer, part)]
    names = {name for outer in models for name in _names(outer)}
    close = difflib.get_close_matches(path[-1], sorted(names), n=1, cutoff=_CUTOFF)
    return close[0] if close else None


def _names(model: type[BaseModel]) -> Iterator[str]:
    """What a document may write for each field: its alias, else its name."""
    for name, info in model.model_fields.items():
        yield info.alias or name


def _field_models(model: type[BaseModel], key: str) -> Iterator[type[BaseModel]]:
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            yield from _models_in(info.annotation)


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    """The models an annotation may hold: itself, or those inside its list, union or
    ``Annotated``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for argument in get_args(annotation):
        yield from _models_in(argument)
