"""The SSRF corpus: hundreds of hostile URLs, and not one connection to a refused address.

Each URL of ``data/ssrf_urls.txt`` is fetched through the guarded client with redirects
followed, over a ``RecordingNetwork`` (beneath the guard, it records every connection attempt)
and a resolver the corpus itself defines. Every one must end in ``EgressRefused`` (the few the
file marks ``invalid`` in ``httpx.InvalidURL``: they never become a request), and the only
connections ever attempted are to the public test addresses (redirectors and rebinding names
are reached once, at their public address, before the hop or the second lookup is refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fake_network import PUBLIC_V4, PUBLIC_V6, SECOND_PUBLIC_V4, RecordingNetwork

from runyard.registry.tools.egress import (
    EgressPolicy,
    EgressRefused,
    StaticResolver,
    guarded_client,
)

CORPUS = Path(__file__).parent / "data" / "ssrf_urls.txt"
PUBLIC = {PUBLIC_V4, PUBLIC_V6, SECOND_PUBLIC_V4}


@dataclass(frozen=True, slots=True)
class Corpus:
    urls: list[str]
    """URLs the guard must refuse."""
    invalid: list[str]
    """URLs httpx must refuse to parse."""
    answers: dict[str, list[list[str]]]
    """Per name, the resolver's answer to each lookup in turn (the last one repeats)."""


def read_corpus() -> Corpus:
    urls: list[str] = []
    invalid: list[str] = []
    answers: dict[str, list[list[str]]] = {}
    for line in CORPUS.read_text().splitlines():
        line = line.strip()
        if line.startswith("resolve "):
            name, *rest = line.split()[1:]
            answers[name] = [turn.split() for turn in " ".join(rest).split(";")]
        elif line.startswith("invalid "):
            invalid.append(line.removeprefix("invalid "))
        elif line and not line.startswith("#"):
            urls.append(line)
    return Corpus(urls, invalid, answers)


CORPUS_DATA = read_corpus()


def test_the_corpus_holds_at_least_200_distinct_urls_the_guard_must_refuse() -> None:
    assert len(set(CORPUS_DATA.urls)) == len(CORPUS_DATA.urls) >= 200


async def fetch(url: str, network: RecordingNetwork) -> None:
    policy = EgressPolicy(resolver=StaticResolver(CORPUS_DATA.answers))
    async with guarded_client(policy, network=network, follow_redirects=True) as client:
        await client.get(url)


@pytest.mark.parametrize("url", CORPUS_DATA.urls)
async def test_a_hostile_url_is_refused_and_connects_nowhere_else(url: str) -> None:
    network = RecordingNetwork()
    with pytest.raises(EgressRefused) as refused:
        await fetch(url, network)

    assert network.addresses <= PUBLIC, f"{url} reached {network.addresses - PUBLIC}"
    assert refused.value.reason
    assert isinstance(refused.value, httpx.ConnectError)


@pytest.mark.parametrize("url", CORPUS_DATA.invalid)
async def test_a_url_httpx_cannot_parse_never_becomes_a_request(url: str) -> None:
    network = RecordingNetwork()
    with pytest.raises(httpx.InvalidURL):
        await fetch(url, network)
    assert network.connects == []
