"""``GuardedNetworkBackend``: the one place an outbound tool connection is opened.

It sits under httpcore's connection pool, where every connection of every request is made (the
first hop and each redirect alike; a pooled connection is reused only for the origin it was
checked for). It asks the ``EgressPolicy`` for the host's checked addresses and connects to one
of those exact addresses; httpcore then starts TLS with the host name, so SNI, certificate
checks and the ``Host`` header still use the name.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

import httpcore
from httpcore import SOCKET_OPTION, AsyncNetworkBackend, AsyncNetworkStream

from runyard.registry.tools.egress.addresses import IPAddress
from runyard.registry.tools.egress.policy import EgressPolicy, EgressRefused
from runyard.registry.tools.egress.resolver import ResolutionError

__all__ = ["GuardedNetworkBackend"]


class GuardedNetworkBackend(AsyncNetworkBackend):
    """Connects only to addresses ``policy`` checked, through ``network`` (default: httpcore's)."""

    def __init__(self, policy: EgressPolicy, network: AsyncNetworkBackend | None = None) -> None:
        self.policy = policy
        self._network = network if network is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        try:
            async with asyncio.timeout_at(deadline):
                addresses = await self.policy.addresses(host)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"looking up {host} took longer than {timeout}s") from exc
        except ResolutionError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        *earlier, last = addresses

        async def connect(address: IPAddress) -> AsyncNetworkStream:
            left = None if deadline is None else max(deadline - loop.time(), 0.0)
            return await self._network.connect_tcp(
                str(address), port, left, local_address, socket_options
            )

        for address in earlier:
            with contextlib.suppress(httpcore.ConnectError, httpcore.ConnectTimeout):
                return await connect(address)
        return await connect(last)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        raise EgressRefused(path, "a Unix socket is a local destination")

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)
