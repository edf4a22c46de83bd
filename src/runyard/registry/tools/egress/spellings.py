"""Reading a URL's host the way the operating system would: every spelling of an IP address.

``inet_aton`` (what ``getaddrinfo`` falls back to) accepts ``2130706433``, ``0x7f.1``,
``017700000001`` and ``127.1`` as 127.0.0.1; a check that only knows dotted quads would pass
them to the resolver as names and lose. So a host is first read as an address in every form the
C library accepts, and only what is no address at all is a name to resolve.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Address, IPv6Address

from runyard.registry.tools.egress.addresses import IPAddress, canonical

__all__ = ["host_address", "is_host_name", "normalise_host"]

_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_DIGITS = {8: "01234567", 10: "0123456789", 16: "0123456789abcdef"}


def normalise_host(host: str) -> str:
    """Lower case, without the brackets of an IPv6 literal or the final dot of a rooted name."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host[:-1] if host.endswith(".") and not host.endswith("..") else host


def host_address(host: str) -> IPAddress | None:
    """The address a normalised host spells (any IPv4 spelling, or IPv6), None for a name."""
    if ":" in host:
        if "%" in host:  # a zone id: only link-local addresses have one to give
            return None
        try:
            return canonical(IPv6Address(host))
        except ValueError:
            return None
    return _ipv4_spelling(host)


def is_host_name(host: str) -> bool:
    """Whether a normalised host is a plain DNS name (letters, digits, ``-``, ``_``, dots)."""
    return len(host) <= 253 and all(_LABEL.match(label) for label in host.split("."))


def _ipv4_spelling(host: str) -> IPv4Address | None:
    parts = host.split(".")
    if len(parts) > 4:
        return None
    numbers = [_number(part) for part in parts]
    if any(n is None for n in numbers):
        return None
    *head, last = [n for n in numbers if n is not None]
    # The last part fills every byte the parts before it left (inet_aton's a, a.b, a.b.c forms).
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = last
    for index, byte in enumerate(head):
        value |= byte << (8 * (3 - index))
    return IPv4Address(value)


def _number(part: str) -> int | None:
    if part.startswith("0x"):
        digits, base = part[2:] or "0", 16
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits or any(c not in _DIGITS[base] for c in digits):
        return None
    return int(digits, base)
