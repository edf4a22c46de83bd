"""``EgressAllowList``: the internal hosts and networks an operator lets tools reach anyway.

Entries are host names (``wiki.corp.example``), wildcard names (``*.svc.cluster.local``: the
subdomains, not the name itself), addresses (``10.0.0.7``, ``[::1]``) or networks
(``10.20.0.0/16``). An allowed name is reached at whatever it resolves to; an allowed address
or network lets that address through, whatever name led to it. Entries are taken literally:
allowing ``169.254.0.0/16`` lets the metadata address through too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_network

from runyard.errors import ConfigurationError
from runyard.registry.tools.egress.addresses import IPAddress
from runyard.registry.tools.egress.spellings import is_host_name, normalise_host

__all__ = ["EgressAllowList"]


@dataclass(frozen=True, slots=True)
class EgressAllowList:
    """Named hosts and networks that the egress guard lets through; empty allows nothing."""

    names: frozenset[str] = frozenset()
    suffixes: frozenset[str] = frozenset()
    """From ``*.corp.example``: ``.corp.example``."""
    networks: tuple[IPv4Network | IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str] | str) -> EgressAllowList:
        """From entries, or one comma-separated string (``RUNYARD_EGRESS_ALLOW``)."""
        if isinstance(entries, str):
            entries = entries.split(",")
        names: set[str] = set()
        suffixes: set[str] = set()
        networks: list[IPv4Network | IPv6Network] = []
        for entry in filter(None, (e.strip() for e in entries)):
            network = _network(entry)
            host = normalise_host(entry)
            if network is not None:
                networks.append(network)
            elif host.startswith("*.") and is_host_name(host[2:]):
                suffixes.add(host[1:])
            elif is_host_name(host):
                names.add(host)
            else:
                raise ConfigurationError(
                    f"egress allow-list entry {entry!r} is no host name, address or network"
                )
        return cls(frozenset(names), frozenset(suffixes), tuple(networks))

    def allows_name(self, host: str) -> bool:
        """Whether a normalised host name is allowed by name."""
        return host in self.names or any(host.endswith(s) for s in self.suffixes)

    def allows_address(self, address: IPAddress) -> bool:
        """Whether ``address`` lies in an allowed network."""
        return any(address in network for network in self.networks)


def _network(entry: str) -> IPv4Network | IPv6Network | None:
    try:
        return ip_network(entry.removeprefix("[").removesuffix("]"), strict=False)
    except ValueError:
        return None
