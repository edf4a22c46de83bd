"""The ``when`` of a routing rule: ``all`` / ``any`` / ``not`` over tests of context fields.

Only the model lives here: what a condition may say, validated (a field the context has, one
operator, a regex that compiles). Evaluating a condition against a request is the router's job.

    when:
      all:
        - {field: user_role, eq: admin}
        - any:
            - {field: ui_page, regex: "^/billing"}
            - not: {field: flags.beta, exists: true}
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    Tag,
    WithJsonSchema,
    field_validator,
    model_serializer,
    model_validator,
)

from runyard.registry.spec_base import SpecModel

__all__ = [
    "CONTEXT_FIELD_PATTERN",
    "OPERATORS",
    "AllOf",
    "AnyOf",
    "Condition",
    "FieldTest",
    "Not",
    "Operator",
]

CONTEXT_FIELD_PATTERN = (
    r"^(tenant|user|user_role|ui_page|(flags|metadata)\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)$"
)
"""The invocation context's fields: four fixed ones, and any ``flags.*`` or ``metadata.*`` path."""

Operator = Literal["eq", "ne", "in", "regex", "exists", "lt", "le", "gt", "ge"]
OPERATORS: tuple[Operator, ...] = ("eq", "ne", "in", "regex", "exists", "lt", "le", "gt", "ge")

Scalar = str | int | float | bool | None
Number = int | float


def _context_field(name: str) -> str:
    if not re.match(CONTEXT_FIELD_PATTERN, name):
        raise ValueError(
            f"unknown context field {name!r}: expected tenant, user, user_role, ui_page, "
            "flags.NAME or metadata.NAME"
        )
    return name


ContextField = Annotated[
    str,
    AfterValidator(_context_field),
    WithJsonSchema({"type": "string", "pattern": CONTEXT_FIELD_PATTERN}),
]


class FieldTest(SpecModel):
    """One field of the context compared with one operator, e.g. ``{field: user_role, eq: admin}``.

    ``exists: true`` matches when the field is present; ``lt``/``le``/``gt``/``ge`` compare numbers.
    """

    model_config = SpecModel.model_config | {
        "json_schema_extra": {"minProperties": 2, "maxProperties": 2}
    }

    field: ContextField
    eq: Scalar = None
    ne: Scalar = None
    in_: list[Scalar] | None = Field(default=None, alias="in")
    regex: str | None = None
    exists: bool | None = None
    lt: Number | None = None
    le: Number | None = None
    gt: Number | None = None
    ge: Number | None = None

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return pattern

    # Which operator was written: ``eq: null`` and an absent ``eq`` are both None in the fields.
    # A private attribute takes part in ``==``, so ``eq: null`` never equals ``ne: null``.
    _operator: Operator = PrivateAttr()

    @model_validator(mode="after")
    def _one_operator(self) -> FieldTest:
        fields = self.model_fields_set
        given = [op for op in OPERATORS if ("in_" if op == "in" else op) in fields]
        if len(given) != 1:
            raise ValueError(
                f"a field test needs exactly one operator of {', '.join(OPERATORS)}"
                + (f"; it has {', '.join(given)}" if given else "")
            )
        self._operator = given[0]
        return self

    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {key: data[key] for key in data if key.rstrip("_") in ("field", self._operator)}

    @property
    def operator(self) -> Operator:
        """The one operator of this test."""
        return self._operator

    @property
    def operand(self) -> Any:
        """The value the field is compared with."""
        return getattr(self, "in_" if self.operator == "in" else self.operator)


class AllOf(SpecModel):
    """Matches when every condition matches."""

    all: list[Condition] = Field(min_length=1)


class AnyOf(SpecModel):
    """Matches when at least one condition matches."""

    any: list[Condition] = Field(min_length=1)


class Not(SpecModel):
    """Matches when its condition does not."""

    not_: Condition = Field(alias="not")


_SHAPES: dict[str, str] = {"all": "AllOf", "any": "AnyOf", "not": "Not", "field": "FieldTest"}


def _shape(value: Any) -> str | None:
    """Which kind of condition a mapping is, by the one key that says so."""
    if isinstance(value, SpecModel):
        return type(value).__name__
    if not isinstance(value, dict):
        return None
    shapes = [tag for key, tag in _SHAPES.items() if key in value]
    return shapes[0] if len(shapes) == 1 else None


Condition = Annotated[
    Annotated[AllOf, Tag("AllOf")]
    | Annotated[AnyOf, Tag("AnyOf")]
    | Annotated[Not, Tag("Not")]
    | Annotated[FieldTest, Tag("FieldTest")],
    Discriminator(
        _shape,
        custom_error_type="condition_shape",
        custom_error_message=(
            "a condition is a mapping with exactly one of all, any, not or field"
        ),
    ),
]

# The three refer to ``Condition``, which is defined after them.
for _model in (AllOf, AnyOf, Not):
    _model.model_rebuild()
