"""The guarded client lets public destinations through, connects to what it checked, and lets the
operator's allow-list in; the default ``ToolDependencies`` client is the guarded one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from ipaddress import IPv4Address
from typing import Any

import httpx
import pytest
from fake_network import PUBLIC_V4, PUBLIC_V6, SECOND_PUBLIC_V4, Connect, RecordingNetwork

from http_target_server import http_target
from runyard.errors import ConfigurationError
from runyard.registry.tools import ToolDependencies
from runyard.registry.tools.egress import (
    MAX_REDIRECTS,
    EgressAllowList,
    EgressPolicy,
    EgressRefused,
    GuardedNetworkBackend,
    IPAddress,
    ResolutionError,
    StaticResolver,
    SystemResolver,
    guarded_client,
)

RESOLVER_TABLE = {
    "example.test": [[PUBLIC_V4]],
    "other.test": [[SECOND_PUBLIC_V4]],
    "six.test": [[PUBLIC_V6]],
    "dark-first.test": [["203.0.114.1", PUBLIC_V4]],
    "rebind.test": [[PUBLIC_V4], ["127.0.0.1"]],
    "mixed.test": [[PUBLIC_V4, "10.0.0.5"]],
    "wiki.corp.test": [["10.0.0.5"]],
    "api.svc.test": [["10.1.2.3"]],
    "svc.test": [["10.1.2.4"]],
    "db.corp.test": [["10.20.0.9"]],
}


def resolver() -> StaticResolver:
    return StaticResolver(RESOLVER_TABLE)


def client(
    network: RecordingNetwork, allow: Sequence[str] = (), **options: Any
) -> httpx.AsyncClient:
    policy = EgressPolicy(EgressAllowList.parse(allow), resolver())
    return guarded_client(policy, network=network, **options)


async def test_a_public_name_is_reached_at_the_address_that_was_checked() -> None:
    network = RecordingNetwork()
    async with client(network) as http:
        response = await http.get("http://example.test/page")

    assert (response.status_code, response.text) == (200, "public content")
    assert network.connects == [Connect(PUBLIC_V4, 80)]
    [exchange] = network.exchanges
    assert exchange.request_line == "GET /page HTTP/1.1"
    assert exchange.headers["host"] == "example.test"


async def test_tls_keeps_the_name_for_sni_and_certificates_while_connecting_to_the_address() -> (
    None
):
    network = RecordingNetwork()
    async with client(network) as http:
        await http.get("https://six.test/")

    assert network.connects == [Connect(PUBLIC_V6, 443)]
    [exchange] = network.exchanges
    assert (exchange.server_hostname, exchange.headers["host"]) == ("six.test", "six.test")


async def test_public_address_literals_go_through() -> None:
    network = RecordingNetwork()
    async with client(network) as http:
        await http.get(f"http://{PUBLIC_V4}:8080/")
        await http.get(f"http://[{PUBLIC_V6}]/")
        await http.get(f"http://[::ffff:{SECOND_PUBLIC_V4}]/")

    assert network.connects == [
        Connect(PUBLIC_V4, 8080),
        Connect(PUBLIC_V6, 80),
        Connect(SECOND_PUBLIC_V4, 80),  # an IPv4-mapped address is dialled as IPv4
    ]


async def test_an_address_that_does_not_answer_falls_over_to_the_next_checked_one() -> None:
    network = RecordingNetwork()
    async with client(network) as http:
        await http.get("http://dark-first.test/")
    assert network.connects == [Connect("203.0.114.1", 80), Connect(PUBLIC_V4, 80)]


async def test_one_lookup_per_connection_so_a_rebinding_answer_is_never_dialled() -> None:
    network = RecordingNetwork()
    policy = EgressPolicy(resolver=(names := resolver()))
    async with guarded_client(policy, network=network) as http:
        await http.get("http://rebind.test/")
        with pytest.raises(EgressRefused) as refused:
            await http.get("http://rebind.test/again")

    assert network.connects == [Connect(PUBLIC_V4, 80)]
    assert names.lookups == {"rebind.test": 2}
    assert refused.value.reason == "it resolves to 127.0.0.1, a loopback address"


async def test_one_internal_answer_among_public_ones_refuses_the_name() -> None:
    network = RecordingNetwork()
    async with client(network) as http:
        with pytest.raises(EgressRefused) as refused:
            await http.get("http://mixed.test/")
    assert network.connects == []
    assert str(refused.value) == (
        "refused to connect to mixed.test: it resolves to 10.0.0.5, a private address"
    )


async def test_every_redirect_hop_is_checked_again() -> None:
    network = RecordingNetwork()
    hop = "http://other.test/?to=http://169.254.169.254/latest/meta-data/"
    async with client(network, follow_redirects=True) as http:
        with pytest.raises(EgressRefused) as refused:
            await http.get(f"http://example.test/?to={hop}")

    assert network.connects == [Connect(PUBLIC_V4, 80), Connect(SECOND_PUBLIC_V4, 80)]
    assert refused.value.host == "169.254.169.254"
    assert refused.value.reason == "169.254.169.254 is a cloud metadata service"


async def test_the_shared_client_follows_at_most_max_redirects() -> None:
    url = "http://example.test/"
    for _ in range(MAX_REDIRECTS + 1):
        url = f"http://example.test/?to={httpx.URL(url)}"
    network = RecordingNetwork()
    async with client(network, follow_redirects=True) as http:
        with pytest.raises(httpx.TooManyRedirects):
            await http.get(url)
    assert len(network.connects) == MAX_REDIRECTS + 1


@pytest.mark.parametrize(
    ("allow", "url", "address"),
    [
        ("wiki.corp.test", "http://wiki.corp.test/", "10.0.0.5"),
        ("WIKI.corp.test.", "http://wiki.corp.test/", "10.0.0.5"),
        ("*.svc.test", "http://api.svc.test/", "10.1.2.3"),
        ("10.20.0.0/16", "http://db.corp.test/", "10.20.0.9"),
        ("10.20.0.0/16", "http://10.20.0.9/", "10.20.0.9"),
        ("10.20.0.9", "http://0xa.20.0.9/", "10.20.0.9"),
        ("[fd00::7]", "http://[fd00::7]/", "fd00::7"),
        ("localhost", "http://localhost/", "127.0.0.1"),
    ],
)
async def test_the_operator_allow_list_lets_named_internal_destinations_through(
    allow: str, url: str, address: str
) -> None:
    network = RecordingNetwork(sites=frozenset({address}))
    policy = EgressPolicy(
        EgressAllowList.parse(allow),
        StaticResolver({**RESOLVER_TABLE, "localhost": [["127.0.0.1"]]}),
    )
    async with guarded_client(policy, network=network) as http:
        response = await http.get(url)
    assert response.status_code == 200
    assert network.addresses == {address}


@pytest.mark.parametrize(
    ("allow", "url"),
    [
        ("wiki.corp.test", "http://api.svc.test/"),
        ("*.svc.test", "http://svc.test/"),
        ("10.20.0.0/16", "http://10.21.0.1/"),
        ("10.20.0.0/16", "http://127.0.0.1/"),
        ("127.0.0.1", "http://localhost/"),
    ],
)
async def test_the_allow_list_lets_through_only_what_it_names(allow: str, url: str) -> None:
    network = RecordingNetwork()
    async with client(network, allow=allow.split(",")) as http:
        with pytest.raises(EgressRefused):
            await http.get(url)
    assert network.connects == []


def test_an_allow_list_entry_that_is_no_host_or_network_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as bad:
        EgressAllowList.parse("wiki.corp.test, http://x/")
    assert str(bad.value) == (
        "egress allow-list entry 'http://x/' is no host name, address or network"
    )
    assert EgressAllowList.parse(" , ") == EgressAllowList()


async def test_a_name_that_does_not_resolve_is_a_connect_error_naming_it() -> None:
    network = RecordingNetwork()
    async with client(network) as http:
        with pytest.raises(httpx.ConnectError, match=r"nowhere\.test does not resolve"):
            await http.get("http://nowhere.test/")
    assert network.connects == []


class _Silent:
    """A resolver that never answers (until the test ends)."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def resolve(self, name: str) -> Sequence[IPAddress]:
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("never answers")


async def test_a_lookup_counts_against_the_connect_timeout() -> None:
    silent = _Silent()
    network = RecordingNetwork()
    async with guarded_client(EgressPolicy(resolver=silent), network=network) as http:
        with pytest.raises(httpx.ConnectTimeout, match=r"looking up slow\.test"):
            await http.get("http://slow.test/", timeout=0.05)
    assert silent.asked.is_set()
    assert network.connects == []


async def test_a_unix_socket_is_refused() -> None:
    backend = GuardedNetworkBackend(EgressPolicy(), RecordingNetwork())
    with pytest.raises(EgressRefused, match="a Unix socket is a local destination"):
        await backend.connect_unix_socket("/run/docker.sock")


async def test_the_default_tool_client_refuses_loopback_and_the_server_sees_nothing() -> None:
    async with http_target() as target, ToolDependencies() as deps:
        with pytest.raises(EgressRefused) as refused:
            await deps.http.get(target.url("127.0.0.1"))
        allowed = EgressPolicy(EgressAllowList.parse("127.0.0.1"))
        async with ToolDependencies(egress=allowed) as operator_allowed:
            response = await operator_allowed.http.get(target.url("127.0.0.1", "/ok"))

    assert refused.value.reason == "127.0.0.1 is a loopback address"
    assert response.status_code == 200
    assert [r.path for r in target.requests] == ["/ok"]


async def test_egress_applies_only_to_the_client_tool_dependencies_makes() -> None:
    async with httpx.AsyncClient() as own:
        with pytest.raises(ConfigurationError, match="egress applies to the client"):
            ToolDependencies(http=own, egress=EgressPolicy())


async def test_the_system_resolver_asks_the_operating_system() -> None:
    assert IPv4Address("127.0.0.1") in await SystemResolver().resolve("localhost")
    with pytest.raises(ResolutionError, match=r"nowhere\.invalid does not resolve"):
        await SystemResolver().resolve("nowhere.invalid")
