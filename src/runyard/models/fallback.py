"""Fallback models: when a provider fails a call, the next model of the agent's list serves it.

An agent names its models in order (``model`` first, then ``fallback_models``); ``ModelCall``
tries them in turn. Any failure the provider reports — an HTTP error (429 rate limit, 5xx, any
other status), a timeout, a connection that could not be made — moves the call to the next
model, as pydantic-ai's ``FallbackModel`` does by default (``fallback_on=(ModelAPIError,)``).
runyard keeps its own small chain rather than that class because each attempt must keep its own
label (for usage, cost and the error that names the model) and because a streamed call may
switch only before anything of it was sent: once a delta reached the client, a failure ends the
call as it would without fallbacks.

This module only describes a switch (``ModelFallback``) and says it in the log; the runtime
turns it into a stream chunk, a span attribute and a metric.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from runyard.models.errors import ModelProviderError

__all__ = ["FallbackHook", "FallbackReason", "ModelFallback", "fallback_of"]

log = logging.getLogger(__name__)

_CAUSES_READ = 8

FallbackReason = Literal["rate_limit", "server_error", "client_error", "timeout", "unreachable"]
"""Why a model was left, from a fixed set (a metric label)."""


@dataclass(frozen=True, slots=True)
class ModelFallback:
    """One switch: ``failed`` (a ``provider:model`` label) failed the call with ``error``, for
    ``reason``; ``model`` serves it next."""

    failed: str
    model: str
    reason: FallbackReason
    error: str
    status_code: int | None = None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (span attributes, logs)."""
        return {
            "failed": self.failed,
            "model": self.model,
            "reason": self.reason,
            "error": self.error,
            "status_code": self.status_code,
        }


FallbackHook = Callable[[ModelFallback], Awaitable[None]]
"""Told of each switch as it happens, before the next model is asked."""


def fallback_of(error: ModelProviderError, failed: str, next_model: str) -> ModelFallback:
    """The switch from ``failed`` to ``next_model`` that ``error`` causes, said in the log."""
    switch = ModelFallback(failed, next_model, _reason(error), str(error), error.status_code)
    log.warning(
        "model %s failed (%s): %s; falling back to %s",
        failed,
        switch.reason,
        switch.error,
        next_model,
        extra={"model": failed, "fallback_model": next_model, "reason": switch.reason},
    )
    return switch


def _reason(error: ModelProviderError) -> FallbackReason:
    status = error.status_code
    if status is None:
        return "timeout" if _timed_out(error) else "unreachable"
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    return "server_error" if status >= 500 else "client_error"


def _timed_out(error: BaseException) -> bool:
    """True when a timeout is anywhere in the error's chain of causes (the SDKs' own classes
    differ: ``openai.APITimeoutError``, ``httpx.ReadTimeout``, ``TimeoutError``)."""
    seen: BaseException | None = error
    for _ in range(_CAUSES_READ):  # bounded: a chain of causes may loop
        if seen is None:
            return False
        if isinstance(seen, TimeoutError) or "Timeout" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False
