"""``face_wiring``: the app's dependencies and drain hooks, as the faces (``runyard.faces``) take
them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.requests import Request

from runyard.faces import FaceWiring
from runyard.http.identity import request_owner
from runyard.http.openapi import error_responses
from runyard.http.state import AppState, parts

__all__ = ["face_wiring"]


def face_wiring() -> FaceWiring:
    """The wiring every face's router is built with."""
    return FaceWiring(parts=parts, owner=request_owner, stream=_stream, errors=error_responses)


@contextmanager
def _stream(request: Request) -> Iterator[asyncio.Event]:
    state: AppState = request.app.state.runyard
    with state.shutdown.stream():
        yield state.shutdown.going_away
