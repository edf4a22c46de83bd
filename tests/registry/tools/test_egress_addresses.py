"""The refused address ranges, and reading a host in every spelling of an IP address."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address, ip_address

import pytest

from runyard.registry.tools.egress import refusal
from runyard.registry.tools.egress.spellings import host_address, is_host_name, normalise_host


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.31.0.1", "a private address"),
        ("192.168.0.1", "a private address"),
        ("100.64.0.1", "a carrier-grade NAT address"),
        ("169.254.1.1", "a link-local address"),
        ("169.254.169.254", "a cloud metadata service"),
        ("169.254.170.2", "a cloud metadata service"),
        ("100.100.100.200", "a cloud metadata service"),
        ("0.0.0.0", "an unspecified address"),
        ("224.0.0.251", "a multicast address"),
        ("255.255.255.255", "the broadcast address"),
        ("240.1.2.3", "a reserved address"),
        ("192.0.2.1", "a documentation address"),
        ("198.18.5.5", "a benchmarking address"),
        ("::1", "a loopback address"),
        ("::", "an unspecified address"),
        ("fd00::1", "a private (unique local) address"),
        ("fd00:ec2::254", "a cloud metadata service"),
        ("fe80::1", "a link-local address"),
        ("ff02::1", "a multicast address"),
        ("2001:db8::1", "a documentation address"),
        ("::8.8.8.8", "an IPv4-compatible address"),
        ("4000::1", "not a global unicast address"),
        ("::ffff:127.0.0.1", "an IPv6 form of 127.0.0.1, a loopback address"),
        ("64:ff9b::a9fe:a9fe", "an IPv6 form of 169.254.169.254, a cloud metadata service"),
        ("2002:a00:1::", "an IPv6 form of 10.0.0.1, a private address"),
    ],
)
def test_a_refused_address_names_its_reason(address: str, why: str) -> None:
    assert refusal(ip_address(address)) == why


@pytest.mark.parametrize(
    "address",
    ["8.8.8.8", "93.184.216.34", "100.128.0.1", "2606:4700:4700::1111", "64:ff9b::808:808"],
)
def test_a_public_address_is_not_refused(address: str) -> None:
    assert refusal(ip_address(address)) is None


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("169.254.43518", "169.254.169.254"),
        ("0", "0.0.0.0"),
        ("4294967295", "255.255.255.255"),
        ("::ffff:7f00:1", "127.0.0.1"),
        ("fd00::1", "fd00::1"),
    ],
)
def test_every_spelling_of_an_address_is_read_as_that_address(host: str, address: str) -> None:
    assert host_address(host) == ip_address(address)


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "1.2.3.4.5",
        "256.1.1.1",
        "1.2.3.256",
        "4294967296",
        "08",
        "0x7g",
        "fe80::1%eth0",
    ],
)
def test_what_is_no_address_is_not_read_as_one(host: str) -> None:
    assert host_address(host) is None


def test_hosts_are_normalised_before_they_are_judged() -> None:
    assert normalise_host("LocalHost.") == "localhost"
    assert normalise_host("[::1]") == "::1"
    assert isinstance(host_address(normalise_host("[::ffff:1.2.3.4]")), IPv4Address)
    assert isinstance(host_address("2606:4700::1"), IPv6Address)


@pytest.mark.parametrize(
    ("host", "plain"),
    [
        ("api.example.com", True),
        ("_dmarc.example.com", True),
        ("%31.0.0.1", False),
        ("a..b", False),
        ("-a.example", False),
        ("a b", False),
    ],
)
def test_only_plain_dns_names_are_names(host: str, plain: bool) -> None:
    assert is_host_name(host) is plain
