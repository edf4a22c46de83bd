"""``ToolDependencies``: the shared clients every tool factory gets, opened once and closed once.

A tool never builds its own HTTP client or reads credentials from the environment: the service
creates one ``ToolDependencies`` at start-up, factories take what they need from it when they
build, and shutdown closes it. Plugins add their own clients by name (``register``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

import httpx

from runyard.errors import ConfigurationError
from runyard.registry.tools.binaries import BinarySource
from runyard.registry.tools.egress import EgressPolicy, guarded_client
from runyard.storage import Store

__all__ = ["Closer", "ToolDependencies"]

Closer = Callable[[], Awaitable[None]]


class ToolDependencies:
    """Shared clients for tool factories; ``async with`` closes everything it owns on exit.

    ``http`` defaults to one ``httpx.AsyncClient`` made here on first use behind the egress guard
    (``egress``, default: every internal address refused; docs/security.md) with
    ``trust_env=False``, so no proxy or certificate setting is read from the environment behind
    the operator's back; a client passed in stays its caller's to configure and close. ``store``
    and ``binaries`` are optional: a factory that needs one it was not given gets a
    ``ConfigurationError`` naming it.
    """

    def __init__(
        self,
        *,
        http: httpx.AsyncClient | None = None,
        store: Store | None = None,
        binaries: BinarySource | None = None,
        egress: EgressPolicy | None = None,
    ) -> None:
        self._closers: list[Closer] = []
        if http is not None and egress is not None:
            raise ConfigurationError(
                "egress applies to the client ToolDependencies makes, not to http="
            )
        self._http = http
        self._egress = egress
        if http is None:  # made on first use, closed in this place of the closing order
            self._closers.append(self._close_own_http)
        self._store = store
        self.binaries = binaries
        """Where ``ExecutionContext.get_binary_stream`` reads binaries from (None: nowhere)."""
        self._named: dict[str, Any] = {}

    @property
    def http(self) -> httpx.AsyncClient:
        """The one HTTP client every tool shares (connection pooling across tools and runs)."""
        if self._http is None:
            # Made when the first tool that calls out is built: making it loads the CA bundle
            # (tens of ms), which ``runyard serve`` with no such tool never needs.
            self._http = guarded_client(self._egress)
        return self._http

    async def _close_own_http(self) -> None:
        if self._http is not None:
            await self._http.aclose()

    @property
    def store(self) -> Store:
        """The service's store; a ``ConfigurationError`` when none was given."""
        if self._store is None:
            raise ConfigurationError("this tool needs the store, but ToolDependencies has none")
        return self._store

    def register(self, name: str, value: Any, *, close: Closer | None = None) -> None:
        """Add a shared client under ``name``; ``close`` is awaited when the dependencies close."""
        if name in self._named:
            raise ConfigurationError(f"tool dependency {name!r} is registered twice")
        self._named[name] = value
        if close is not None:
            self._closers.append(close)

    def __contains__(self, name: object) -> bool:
        """Whether a client is registered as ``name``."""
        return name in self._named

    def get(self, name: str) -> Any:
        """The client registered as ``name``; a ``ConfigurationError`` lists the known ones."""
        try:
            return self._named[name]
        except KeyError:
            known = ", ".join(sorted(self._named)) or "none"
            raise ConfigurationError(
                f"tool dependency {name!r} is not registered (registered: {known})"
            ) from None

    async def aclose(self) -> None:
        """Close what these dependencies own, newest first; each closer runs even if one fails."""
        closers, self._closers = self._closers, []
        failures: list[Exception] = []
        for close in reversed(closers):
            try:
                await close()
            except Exception as exc:
                failures.append(exc)
        if failures:
            raise ExceptionGroup("closing tool dependencies failed", failures)

    async def __aenter__(self) -> ToolDependencies:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
