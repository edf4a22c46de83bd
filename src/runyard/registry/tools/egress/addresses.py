"""Which IP addresses an outbound request may never reach, and why.

One explicit table (IANA's special-purpose registries plus the cloud metadata services) rather
than ``ipaddress``'s ``is_private``/``is_global``: those changed between Python patch releases,
and a refusal must name its reason. IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4,
Teredo) are judged by the IPv4 address they carry, so ``::ffff:127.0.0.1`` is loopback.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

__all__ = ["IPAddress", "canonical", "refusal"]

IPAddress = IPv4Address | IPv6Address

_METADATA = "a cloud metadata service"

# First match wins: the metadata addresses come before the ranges that hold them.
_REFUSED_V4: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), why)
    for net, why in (
        ("169.254.169.254/32", _METADATA),  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
        ("169.254.170.2/32", _METADATA),  # AWS ECS task metadata
        ("100.100.100.200/32", _METADATA),  # Alibaba Cloud
        ("0.0.0.0/8", "an unspecified address"),
        ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a carrier-grade NAT address"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address"),
        ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.88.99.0/24", "a reserved address"),
        ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("255.255.255.255/32", "the broadcast address"),
        ("240.0.0.0/4", "a reserved address"),
    )
)

_REFUSED_V6: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), why)
    for net, why in (
        ("fd00:ec2::254/128", _METADATA),  # AWS over IPv6
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("::/96", "an IPv4-compatible address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001::/23", "an IETF protocol address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("fc00::/7", "a private (unique local) address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"),
        ("ff00::/8", "a multicast address"),
    )
)

# Outside these, IPv6 is not global unicast (RFC 4291); the NAT64 prefix carries IPv4.
_GLOBAL_V6 = (IPv6Network("2000::/3"), IPv6Network("64:ff9b::/96"))
_NAT64 = IPv6Network("64:ff9b::/96")


def refusal(address: IPAddress) -> str | None:
    """Why ``address`` may not be reached (``"a loopback address"``), or None when it may."""
    if isinstance(address, IPv4Address):
        return _first_match(address, _REFUSED_V4)
    for carried in _carried_ipv4(address):
        why = refusal(carried)
        if why is not None:
            return f"an IPv6 form of {carried}, {why}"
    if address.ipv4_mapped is not None:
        return None
    why = _first_match(address, _REFUSED_V6)
    if why is None and not any(address in net for net in _GLOBAL_V6):
        return "not a global unicast address"
    return why


def _first_match(
    address: IPAddress, table: tuple[tuple[IPv4Network | IPv6Network, str], ...]
) -> str | None:
    return next((why for net, why in table if address in net), None)


def _carried_ipv4(address: IPv6Address) -> list[IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (mapped, NAT64, 6to4, Teredo)."""
    carried: list[IPv4Address] = []
    if address.ipv4_mapped is not None:
        carried.append(address.ipv4_mapped)
    if address in _NAT64:
        carried.append(IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        carried.append(address.sixtofour)
    if address.teredo is not None:
        carried.extend(address.teredo)
    return carried


def canonical(address: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address as the IPv4 address it is; any other address unchanged."""
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
