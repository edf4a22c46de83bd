"""``InvocationContext``: what routing rules can see of one request, and reading a field of it.

The fields are the ones a rule's ``field:`` may name (``runyard.registry.conditions``): four fixed
ones and any path under ``flags.`` or ``metadata.``. Reading a field tells a present value apart
from an absent one, because ``exists`` and ``ne`` treat them differently from ``null``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from runyard.registry.spec_base import TenantId
from runyard.routing.json_values import described_type

__all__ = ["FieldValue", "InvocationContext", "read_field", "read_path"]


class InvocationContext(BaseModel):
    """The request as routing sees it. Strict: a value of the wrong type is a validation error
    (``"user_role": 3`` is refused, not turned into ``"3"``), an unknown key too.

    ``user``, ``user_role`` and ``ui_page`` left out or ``null`` are absent. ``flags`` and
    ``metadata`` hold any JSON; a rule reads them by dotted path (``metadata.account.plan``).
    """

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    tenant: TenantId
    """The tenant the request acts for (the ``X-Runyard-Tenant`` header); it picks the routing."""
    user: str | None = None
    """Who asks (the ``X-Runyard-User`` header)."""
    user_role: str | None = None
    """The user's role, as the caller's own system names it (``admin``, ``finance``, …)."""
    ui_page: str | None = None
    """Where in the caller's UI the request comes from (``/billing/invoices``)."""
    flags: dict[str, JsonValue] = Field(default_factory=dict)
    """Switches of the caller (feature flags, selection state), usually booleans."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Anything else the caller knows about the request."""


@dataclass(frozen=True, slots=True)
class FieldValue:
    """One field read from a context: its value when ``present``, else why it is absent."""

    present: bool
    value: JsonValue = None
    absent_because: str = ""
    """Empty, or where a dotted path stopped (``metadata.account is a string``)."""


_ABSENT = FieldValue(present=False)


def read_field(context: InvocationContext, field: str) -> FieldValue:
    """The value of ``field`` (``user_role``, ``flags.beta``, ``metadata.account.plan``, …)."""
    head, _, path = field.partition(".")
    if not path:
        value = getattr(context, head)
        return _ABSENT if value is None else FieldValue(present=True, value=value)
    root: dict[str, JsonValue] = getattr(context, head)
    return _walk(root, head, path.split("."))


def read_path(values: dict[str, JsonValue], path: str, name: str = "arguments") -> FieldValue:
    """The value at dotted ``path`` inside ``values`` (a tool call's arguments: ``to.iban``);
    ``name`` names ``values`` in why a value is absent."""
    return _walk(values, name, path.split("."))


def _walk(value: dict[str, JsonValue], walked: str, keys: list[str]) -> FieldValue:
    """Follow ``keys`` into nested objects; a missing key or a non-object on the way is absent."""
    current: JsonValue = value
    for key in keys:
        if not isinstance(current, dict):
            why = f"{walked} is {described_type(current)}"
            return FieldValue(present=False, absent_because=why)
        if key not in current:
            return _ABSENT
        current = current[key]
        walked = f"{walked}.{key}"
    return FieldValue(present=True, value=current)
