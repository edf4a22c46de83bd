"""``StartupRefusal``: a lifespan refused for a ``ConfigurationError`` reports no traceback (the
reason is kept for ``runyard serve`` to print); any other failure reaches uvicorn as it was."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from starlette.applications import Starlette
from starlette.types import Message

from runyard.cli.startup_refusal import StartupRefusal
from runyard.errors import ConfigurationError


def failing_app(error: Exception) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        raise error
        yield

    return Starlette(lifespan=lifespan)


async def start(refusal: StartupRefusal) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "lifespan.startup"}

    async def send(message: Message) -> None:
        sent.append(message)

    with pytest.raises((ConfigurationError, RuntimeError)):  # what the lifespan raised
        await refusal({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    return sent


async def test_a_configuration_error_is_reported_without_text_and_kept() -> None:
    error = ConfigurationError("the catalog has no agents to serve")
    refusal = StartupRefusal(failing_app(error))

    sent = await start(refusal)

    assert sent == [{"type": "lifespan.startup.failed", "message": ""}]
    assert refusal.refusal is error


async def test_any_other_failure_keeps_its_traceback() -> None:
    refusal = StartupRefusal(failing_app(RuntimeError("a bug")))

    sent = await start(refusal)

    assert [message["type"] for message in sent] == ["lifespan.startup.failed"]
    assert sent[0]["message"].startswith("Traceback")
    assert "RuntimeError: a bug" in sent[0]["message"]
    assert refusal.refusal is None
