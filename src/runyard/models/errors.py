"""Provider failures, mapped from pydantic-ai's exceptions at this one edge (STYLE.md habit 8).

Every model call (``request_model``, ``stream_model``) runs under ``provider_errors``: a failure
the provider reported leaves ``runyard.models`` as a ``ModelProviderError`` carrying the
provider, the HTTP status code and the provider's error body. The layers above read those
fields and never import a pydantic-ai exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus

from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior
from pydantic_ai.models import Model

from runyard.errors import RunError
from runyard.models.resolve import model_label

__all__ = ["ModelProviderError", "provider_errors"]

_DETAIL_LIMIT = 500


class ModelProviderError(RunError):
    """A model call failed at the provider: it answered with an error, or could not be reached.

    ``provider`` is the provider part of the model's label (``"openai-chat"``, ``"anthropic"``,
    ``"runyard"`` for the demo), ``model`` the whole label. ``status_code`` is the HTTP status
    when the provider sent one (``None`` for a connection failure), ``code`` the provider's
    machine-readable error code (``"rate_limit_exceeded"``) and ``body`` its error body, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str,
        status_code: int | None = None,
        code: str | None = None,
        body: object = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.code = code
        self.body = body


@contextmanager
def provider_errors(model: Model) -> Iterator[None]:
    """Re-raise pydantic-ai's provider failures inside the block as ``ModelProviderError``."""
    try:
        yield
    except (ModelAPIError, UnexpectedModelBehavior) as exc:
        raise _mapped(model, exc) from exc


def _mapped(model: Model, exc: ModelAPIError | UnexpectedModelBehavior) -> ModelProviderError:
    label = model_label(model)
    provider = label.partition(":")[0]
    if isinstance(exc, ModelHTTPError):
        return ModelProviderError(
            f"{label} answered HTTP {_status_text(exc.status_code)}: {_detail(exc)}",
            provider=provider,
            model=label,
            status_code=exc.status_code,
            code=exc.provider_error_code,
            body=exc.body,
        )
    code = exc.provider_error_code if isinstance(exc, ModelAPIError) else None
    return ModelProviderError(
        f"{label} failed: {exc.message}", provider=provider, model=label, code=code, body=exc.body
    )


def _status_text(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _detail(exc: ModelHTTPError) -> str:
    """The provider's own words: its error body's ``message`` when it has one, else the body."""
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    if body is None or body == "":
        return "no details"
    return str(body)[:_DETAIL_LIMIT]
