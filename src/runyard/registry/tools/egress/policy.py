"""``EgressPolicy``: where an outbound connection may go, decided once per connection.

The policy reads the host in every spelling the C library accepts, refuses names that only mean
something inside the network, resolves the rest once and checks every address it gets. What it
returns is the list a connection must use: connecting to anything else would reopen the window
in which a second lookup answers differently (DNS rebinding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx

from runyard.registry.tools.egress.addresses import IPAddress, canonical, refusal
from runyard.registry.tools.egress.allow_list import EgressAllowList
from runyard.registry.tools.egress.resolver import ResolutionError, Resolver, SystemResolver
from runyard.registry.tools.egress.spellings import host_address, is_host_name, normalise_host

__all__ = ["EgressPolicy", "EgressRefused"]

_METADATA_NAMES = frozenset({"metadata.google.internal", "metadata.goog"})
_LOCAL_SUFFIXES = (
    (".localhost", "a name of this machine"),
    (".internal", "a private-use name"),
    (".local", "a local-network (mDNS) name"),
    (".home.arpa", "a home-network name"),
)


class EgressRefused(httpx.ConnectError):
    """A connection the egress policy refuses; ``host`` and ``reason`` say which and why.

    It is an ``httpx.ConnectError``, so code that handles a failed connection handles this one.
    """

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"refused to connect to {host}: {reason}")
        self.host = host
        self.reason = reason


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    """Refuses internal destinations unless ``allow`` names them; names go through ``resolver``."""

    allow: EgressAllowList = field(default_factory=EgressAllowList)
    resolver: Resolver = field(default_factory=SystemResolver)

    async def addresses(self, host: str) -> Sequence[IPAddress]:
        """The checked addresses a connection to ``host`` may use.

        Raises ``EgressRefused`` when the host or any address it resolves to is refused (one
        internal answer among public ones refuses the host), ``ResolutionError`` when it does
        not resolve.
        """
        name = normalise_host(host)
        literal = host_address(name)
        if literal is not None:
            spelled = f"{literal} is" if str(literal) == name else f"it spells {literal},"
            self._check(host, literal, spelled)
            return [literal]
        if not is_host_name(name):
            raise EgressRefused(host, "it is neither a host name nor an IP address")
        if self.allow.allows_name(name):
            return await self._resolve(name)
        why = _name_refusal(name)
        if why is not None:
            raise EgressRefused(host, why)
        addresses = await self._resolve(name)
        for address in addresses:
            self._check(host, address, f"it resolves to {address},")
        return addresses

    def _check(self, host: str, address: IPAddress, subject: str) -> None:
        if self.allow.allows_address(address):
            return
        why = refusal(address)
        if why is not None:
            raise EgressRefused(host, f"{subject} {why}")

    async def _resolve(self, name: str) -> Sequence[IPAddress]:
        # Mapped IPv6 answers are dialled as IPv4; duplicates (one per socket type) dialled once.
        addresses = list(dict.fromkeys(canonical(a) for a in await self.resolver.resolve(name)))
        if not addresses:
            raise ResolutionError(f"{name} does not resolve")
        return addresses


def _name_refusal(name: str) -> str | None:
    if name in _METADATA_NAMES:
        return f"{name} is a cloud metadata service"
    for suffix, why in _LOCAL_SUFFIXES:
        if name == suffix[1:] or name.endswith(suffix):
            return f"{name} is {why}"
    if "." not in name:
        return "a single-label name is looked up in the local search domains"
    return None
