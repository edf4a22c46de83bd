"""``StartupRefusal``: the ASGI app ``runyard serve`` hands uvicorn, around runyard's, so that a
start-up refused for a ``ConfigurationError`` (a catalog with no agent to serve, a catalog
directory that is not there) ends with its reason, not a traceback.

Starlette reports a failed lifespan to uvicorn with the whole traceback, which uvicorn logs as one
record: kilobytes of lifespan frames, one escaped line in JSON logs, the reason at its end. The
reason is the operator's to fix, not a bug of runyard's: it is kept here and the failure reported
without text; ``runyard serve`` prints it and exits 1. Any other failure keeps its traceback.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from runyard.errors import ConfigurationError

__all__ = ["StartupRefusal"]


class StartupRefusal:
    """Passes everything through to ``app``; ``refusal`` is why its start-up was refused (None:
    it was not, or for a fault that is not the configuration's)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.refusal: ConfigurationError | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        failed: list[Message] = []

        async def hold_failure(message: Message) -> None:
            # Starlette sends the failure before it raises: held until the cause is known.
            if message["type"] == "lifespan.startup.failed":
                failed.append(message)
                return
            await send(message)

        try:
            await self.app(scope, receive, hold_failure)
        except ConfigurationError as exc:
            self.refusal = exc
            failed[:] = [{"type": "lifespan.startup.failed", "message": ""}]
            raise
        finally:
            for message in failed:
                await send(message)
