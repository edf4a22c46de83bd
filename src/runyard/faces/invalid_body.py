"""``invalid_field``: a body a face cannot act on, refused as any malformed body is — 422 with
``fields`` naming where (``body.<path>``), through the app's validation error handler;
``user_text``: the text of a user message, refused so when a run cannot take it."""

from __future__ import annotations

from fastapi.exceptions import RequestValidationError

from runyard.json_text import is_storable

__all__ = ["invalid_field", "user_text"]


def invalid_field(path: str, message: str) -> RequestValidationError:
    """The 422 for the body field at ``path`` (dotted, list indexes as numbers)."""
    location = ("body", *(int(p) if p.isdigit() else p for p in path.split(".")))
    return RequestValidationError([{"loc": location, "msg": message, "type": "value_error"}])


def user_text(text: str, path: str) -> str:
    """``text``, the input of a run; the 422 for the field at ``path`` when it has no text, or
    text no store keeps."""
    if not text.strip():
        raise invalid_field(path, "the user message has no text")
    if not is_storable(text):
        raise invalid_field(path, "must not contain a NUL character or a lone surrogate")
    return text
