"""The egress guard: tools reach the internet, not the network runyard runs in (SSRF).

Every connection the shared tool HTTP client opens goes through ``GuardedNetworkBackend``: the
host is read in every IP spelling, names that only mean something locally are refused, the rest
are resolved once (``Resolver``), every address is checked against the refused ranges, and the
connection goes to one of the addresses that were checked. ``EgressAllowList`` is the operator's
way through for named internal hosts (``RUNYARD_EGRESS_ALLOW``). Refusals are ``EgressRefused``,
an ``httpx.ConnectError``. Nothing here reads the environment.
"""

from runyard.registry.tools.egress.addresses import IPAddress, refusal
from runyard.registry.tools.egress.allow_list import EgressAllowList
from runyard.registry.tools.egress.backend import GuardedNetworkBackend
from runyard.registry.tools.egress.client import MAX_REDIRECTS, GuardedTransport, guarded_client
from runyard.registry.tools.egress.policy import EgressPolicy, EgressRefused
from runyard.registry.tools.egress.resolver import (
    ResolutionError,
    Resolver,
    StaticResolver,
    SystemResolver,
)

__all__ = [
    "MAX_REDIRECTS",
    "EgressAllowList",
    "EgressPolicy",
    "EgressRefused",
    "GuardedNetworkBackend",
    "GuardedTransport",
    "IPAddress",
    "ResolutionError",
    "Resolver",
    "StaticResolver",
    "SystemResolver",
    "guarded_client",
    "refusal",
]
