"""``Resolver``: how the egress guard turns a host name into addresses (a seam tests replace).

``SystemResolver`` asks the operating system (``getaddrinfo``, in a worker thread as asyncio
does); ``StaticResolver`` answers from a table, and can answer differently on each lookup to
play a DNS-rebinding server.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable, Mapping, Sequence
from ipaddress import ip_address
from typing import Protocol

from runyard.registry.tools.egress.addresses import IPAddress

__all__ = ["ResolutionError", "Resolver", "StaticResolver", "SystemResolver"]


class ResolutionError(Exception):
    """A name has no addresses (or could not be looked up)."""


class Resolver(Protocol):
    """Looks up a host name; raises ``ResolutionError`` when there is no address."""

    async def resolve(self, name: str) -> Sequence[IPAddress]: ...


class SystemResolver:
    """The operating system's resolver (``/etc/hosts``, DNS, search domains)."""

    async def resolve(self, name: str) -> Sequence[IPAddress]:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(name, None, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise ResolutionError(f"{name} does not resolve: {exc}") from exc
        return [ip_address(info[4][0]) for info in infos]


class StaticResolver:
    """Answers from a table: a name's list of answers is used in turn, the last one repeating.

    ``{"a.test": [["93.184.216.34"], ["127.0.0.1"]]}`` answers public on the first lookup and
    loopback on every later one (DNS rebinding). ``lookups`` counts the lookups per name.
    """

    def __init__(self, answers: Mapping[str, Iterable[Iterable[str]]]) -> None:
        self._answers = {
            name.lower(): [[ip_address(a) for a in answer] for answer in answer_list]
            for name, answer_list in answers.items()
        }
        self.lookups: dict[str, int] = {}

    async def resolve(self, name: str) -> Sequence[IPAddress]:
        answers = self._answers.get(name)
        if not answers:
            raise ResolutionError(f"{name} does not resolve")
        count = self.lookups.get(name, 0)
        self.lookups[name] = count + 1
        return answers[min(count, len(answers) - 1)]
