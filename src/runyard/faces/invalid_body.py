"""``invalid_field``: a body a face cannot act on, refused as any malformed body is — 422 with
``fields`` naming where (``body.<path>``), through the app's validation error handler."""

from __future__ import annotations

from fastapi.exceptions import RequestValidationError

__all__ = ["invalid_field"]


def invalid_field(path: str, message: str) -> RequestValidationError:
    """The 422 for the body field at ``path`` (dotted, list indexes as numbers)."""
    location = ("body", *(int(p) if p.isdigit() else p for p in path.split(".")))
    return RequestValidationError([{"loc": location, "msg": message, "type": "value_error"}])
