"""``guarded_client``: the ``httpx.AsyncClient`` tools share, with the egress guard beneath it.

httpx 0.28 gives its transport no parameter for httpcore's network backend, so
``GuardedTransport`` builds the stock transport and swaps in a connection pool that connects
through ``GuardedNetworkBackend``; everything else (request mapping, error mapping, TLS, HTTP/1.1
keep-alive) stays httpx's own. A test that records the connections made fails if this ever
stops being the pool that is used.
"""

from __future__ import annotations

import httpcore
import httpx

from runyard.registry.tools.egress.backend import GuardedNetworkBackend
from runyard.registry.tools.egress.policy import EgressPolicy

__all__ = ["MAX_REDIRECTS", "GuardedTransport", "guarded_client"]

MAX_REDIRECTS = 5
"""The most redirects the shared client follows for a tool that asks it to follow them."""

# httpx's own defaults, spelled out because the pool is built here.
_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)
_TIMEOUT = httpx.Timeout(5.0)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport, connecting only where ``policy`` allows; no proxy, no env settings."""

    def __init__(
        self, policy: EgressPolicy, *, network: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        super().__init__(trust_env=False, limits=_LIMITS)
        self.backend = GuardedNetworkBackend(policy, network)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=_LIMITS.max_connections,
            max_keepalive_connections=_LIMITS.max_keepalive_connections,
            keepalive_expiry=_LIMITS.keepalive_expiry,
            network_backend=self.backend,
        )


def guarded_client(
    policy: EgressPolicy | None = None,
    *,
    network: httpcore.AsyncNetworkBackend | None = None,
    timeout: httpx.Timeout | float = _TIMEOUT,
    follow_redirects: bool = False,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose every connection passes ``policy`` (default: refuse internal).

    ``network`` replaces the real network beneath the guard (tests record connections with it).
    No proxy, mount or transport can be given: each would open connections the guard never sees.
    """
    return httpx.AsyncClient(
        transport=GuardedTransport(policy or EgressPolicy(), network=network),
        trust_env=False,
        timeout=timeout,
        follow_redirects=follow_redirects,
        max_redirects=MAX_REDIRECTS,
    )
