"""A network for the egress tests: it sits beneath the guard and records every connection.

``RecordingNetwork`` is what ``GuardedNetworkBackend`` connects through in these tests: each
``connect_tcp`` is recorded (the address and port the guard chose) before anything else happens,
so "no connection was attempted" is ``network.connects == []``, not an inference from an error.
Addresses in ``sites`` answer HTTP/1.1: a request whose query has ``to=URL`` gets a ``302`` to
that URL (a public redirector), any other gets ``200`` with ``body``. Other addresses refuse.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpcore

PUBLIC_V4 = "93.184.216.34"
PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"
SECOND_PUBLIC_V4 = "198.41.0.4"


@dataclass(frozen=True, slots=True)
class Connect:
    address: str
    port: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request a site received: its head, and the TLS server name if TLS was started."""

    address: str
    request_line: str
    headers: dict[str, str]
    server_hostname: str | None


class _SiteStream(httpcore.AsyncNetworkStream):
    def __init__(self, network: RecordingNetwork, address: str) -> None:
        self._network = network
        self._address = address
        self._received = b""
        self._answer: bytes | None = None
        self._server_hostname: str | None = None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        self._received += buffer
        if self._answer is None and b"\r\n\r\n" in self._received:
            self._answer = self._respond(self._received.split(b"\r\n\r\n")[0].decode())

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        answer, self._answer = self._answer or b"", b""
        return answer

    async def aclose(self) -> None:
        return None

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        self._server_hostname = server_hostname
        return self

    def get_extra_info(self, info: str) -> Any:
        return None

    def _respond(self, head: str) -> bytes:
        request_line, *lines = head.split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
        self._network.exchanges.append(
            Exchange(self._address, request_line, headers, self._server_hostname)
        )
        target = request_line.split(" ")[1]
        to = parse_qs(urlsplit(target).query).get("to")
        if to:
            status, extra, body = "302 Found", f"Location: {to[0]}\r\n", b""
        else:
            status, extra, body = "200 OK", "", self._network.body
        return (
            f"HTTP/1.1 {status}\r\n{extra}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body


@dataclass
class RecordingNetwork(httpcore.AsyncNetworkBackend):
    """Records every connection attempt; ``sites`` answer HTTP, other addresses refuse."""

    sites: frozenset[str] = frozenset({PUBLIC_V4, PUBLIC_V6, SECOND_PUBLIC_V4})
    body: bytes = b"public content"
    connects: list[Connect] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append(Connect(host, port))
        if host not in self.sites:
            raise httpcore.ConnectError(f"nothing listens on {host}")
        return _SiteStream(self, host)

    async def sleep(self, seconds: float) -> None:
        return None

    @property
    def addresses(self) -> set[str]:
        """Every address a connection was attempted to."""
        return {connect.address for connect in self.connects}
