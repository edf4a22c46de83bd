"""``FaceWiring``: what ``runyard.http`` hands each face's router, so that a face finds the
service and its caller exactly as the ``/v1`` routes do (the same keys, the same 503 while the
app starts or stops) without importing ``runyard.http``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from runyard.service import Owner, ServiceParts

__all__ = ["FaceWiring"]


@dataclass(frozen=True, slots=True)
class FaceWiring:
    """FastAPI dependencies and hooks from the app that mounts the faces."""

    parts: Callable[..., Awaitable[ServiceParts]]
    """Dependency: the ready ``ServiceParts`` (503 ``not_ready`` while starting or stopping);
    async, as every dependency of the app's (a plain function would run on a worker thread)."""
    owner: Callable[..., Awaitable[Owner]]
    """Dependency: the ``Owner`` the request acts for, decided by ``RUNYARD_AUTH`` (401/400)."""
    stream: Callable[[Request], AbstractContextManager[asyncio.Event]]
    """Counts a long response (a stream) while its block runs, so draining waits for it; the
    event it gives is set when the server goes away and the response must end."""
    errors: Callable[..., dict[int | str, dict[str, Any]]]
    """The OpenAPI ``responses`` of the given error statuses, each the app's ``ErrorBody``."""
