"""Provider failures leave the model layer as ``ModelProviderError``, worded from what was sent."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError, UnexpectedModelBehavior

from runyard.errors import RunError
from runyard.models import ModelProviderError, provider_errors, resolve_model

DEMO = resolve_model("runyard:demo")


@pytest.mark.parametrize(
    ("raised", "message", "status"),
    [
        (
            ModelHTTPError(599, "demo", "upstream went away"),
            "runyard:demo answered HTTP 599: upstream went away",
            599,
        ),
        (
            ModelHTTPError(502, "demo"),
            "runyard:demo answered HTTP 502 Bad Gateway: no details",
            502,
        ),
        (
            ModelAPIError("demo", "Connection error."),
            "runyard:demo failed: Connection error.",
            None,
        ),
        (
            UnexpectedModelBehavior("Received empty model response"),
            "runyard:demo failed: Received empty model response",
            None,
        ),
    ],
)
def test_each_provider_failure_is_mapped_with_its_status_and_words(
    raised: Exception, message: str, status: int | None
) -> None:
    with pytest.raises(ModelProviderError) as failed, provider_errors(DEMO):
        raise raised

    error = failed.value
    assert (str(error), error.status_code, error.provider) == (message, status, "runyard")
    assert isinstance(error, RunError)
    assert error.__cause__ is raised


def test_other_exceptions_pass_through_unmapped() -> None:
    with pytest.raises(KeyError), provider_errors(DEMO):
        raise KeyError("not the provider's")
