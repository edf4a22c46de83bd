"""``http_request`` against a local server: allow-list, approval for other hosts, size and time limits."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fake_network import PUBLIC_V4, PUBLIC_V6, SECOND_PUBLIC_V4, RecordingNetwork
from tool_runs import agent_calling, results

from http_target_server import HttpTarget, http_target
from runyard.errors import ConfigurationError
from runyard.messages import ToolResultPart
from runyard.registry.tools import (
    BuildContext,
    ToolConfiguration,
    ToolDependencies,
    ToolFactories,
    domain_access_question,
)
from runyard.registry.tools.egress import (
    EgressAllowList,
    EgressPolicy,
    StaticResolver,
    guarded_client,
)
from runyard.runtime import ToolEventChunk
from runyard.service.runs.confirmation_request import confirmation_payload
from runyard.tools import ToolProgress

ALLOWED = "127.0.0.1"
OTHER = "localhost"  # the same server under a name that is not on the allow-list
# The egress guard refuses loopback; these tests reach their local server because the operator
# allow-list names it, as RUNYARD_EGRESS_ALLOW would.
LOCAL_SERVER = EgressPolicy(
    EgressAllowList.parse([ALLOWED, OTHER]), StaticResolver({OTHER: [[ALLOWED]]})
)


@pytest.fixture
async def target() -> AsyncIterator[HttpTarget]:
    async with http_target() as server:
        yield server


@pytest.fixture
async def deps() -> AsyncIterator[ToolDependencies]:
    async with ToolDependencies(egress=LOCAL_SERVER) as shared:
        yield shared


def fetch_tool(deps: ToolDependencies, **parameters: Any) -> ToolConfiguration:
    params = {"allowed_domains": [ALLOWED], **parameters}
    return ToolFactories.discover([]).build("http_request", BuildContext("fetch", params), deps)


async def test_an_allow_listed_host_is_reached_with_the_default_headers(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    tools = fetch_tool(deps, headers={"X-Team": "ops"}).tools
    args = {"method": "GET", "url": target.url(ALLOWED, "/hello"), "headers": {"X-Team": "model"}}
    stream = await agent_calling(tools, ("fetch", args)).stream("go")
    chunks = [chunk async for chunk in stream]
    result = await stream.result()

    [received] = target.requests
    assert (received.method, received.path, received.headers["x-team"]) == ("GET", "/hello", "ops")
    outcome = results(result)["c0"]
    assert not outcome.is_error
    assert outcome.result["status"] == 200
    assert outcome.result["json"] == {"ok": True}
    progress = [c.event for c in chunks if isinstance(c, ToolEventChunk)]
    assert progress == [ToolProgress(f"GET {args['url']}")]


async def test_a_json_or_text_body_is_sent(target: HttpTarget, deps: ToolDependencies) -> None:
    tools = fetch_tool(deps, allowed_methods=["POST", "PUT"]).tools
    url = target.url(ALLOWED, "/items")
    agent = agent_calling(
        tools,
        ("fetch", {"method": "POST", "url": url, "json": {"a": 1}}),
        ("fetch", {"method": "PUT", "url": url, "text": "plain words"}),
    )
    result = await agent.generate("go")

    assert all(not r.is_error for r in results(result).values())
    by_method = {r.method: r for r in target.requests}
    assert json.loads(by_method["POST"].body) == {"a": 1}
    assert by_method["POST"].headers["content-type"] == "application/json"
    assert by_method["PUT"].body == b"plain words"


async def test_a_method_that_is_not_allowed_is_a_tool_error(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    agent = agent_calling(
        fetch_tool(deps).tools, ("fetch", {"method": "DELETE", "url": target.url(ALLOWED)})
    )
    outcome = results(await agent.generate("go"))["c0"]
    assert outcome.is_error
    assert "Invalid tool input" in outcome.result
    assert "DELETE" in outcome.result
    assert target.requests == []


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "/relative", "http://[::1"])
async def test_a_url_that_is_not_absolute_http_is_a_tool_error(
    deps: ToolDependencies, url: str
) -> None:
    agent = agent_calling(fetch_tool(deps).tools, ("fetch", {"method": "GET", "url": url}))
    outcome = results(await agent.generate("go"))["c0"]
    assert outcome.is_error
    assert outcome.result == f"not an absolute http(s) URL: {url!r}"


async def test_another_host_asks_for_approval_and_runs_once_approved(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    url = target.url(OTHER, "/elsewhere")
    agent = agent_calling(fetch_tool(deps).tools, ("fetch", {"method": "GET", "url": url}))
    asked = await agent.generate("go")

    [question] = asked.pending_suspend
    assert question.payload == domain_access_question("fetch", url, OTHER)
    assert question.payload["domainAccess"] == {"url": url, "host": OTHER}
    wire = confirmation_payload("req-1", question)
    assert wire.domain_access is not None
    assert (wire.domain_access.url, wire.domain_access.host) == (url, OTHER)
    assert target.requests == []

    done = await agent.approve("generate", run_id=asked.run_id, tool_call_id="c0")
    assert done.text == "done"
    [received] = target.requests
    assert received.path == "/elsewhere"
    assert results(done)["c0"].result["status"] == 200


async def test_another_host_denied_is_never_reached(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    url = target.url(OTHER)
    agent = agent_calling(fetch_tool(deps).tools, ("fetch", {"method": "GET", "url": url}))
    asked = await agent.generate("go")
    done = await agent.deny("generate", run_id=asked.run_id, tool_call_id="c0")

    outcome = results(done)["c0"]
    assert outcome.is_error
    assert outcome.result == f'Tool "fetch" was not allowed to reach {OTHER}'
    assert target.requests == []


async def test_a_redirect_is_returned_not_followed(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    elsewhere = target.url(OTHER, "/trap")
    target.respond(b"", status="302 Found", extra_headers=f"Location: {elsewhere}\r\n")
    agent = agent_calling(
        fetch_tool(deps).tools, ("fetch", {"method": "GET", "url": target.url(ALLOWED)})
    )
    outcome = results(await agent.generate("go"))["c0"]

    assert (outcome.result["status"], outcome.result["headers"]["location"]) == (302, elsewhere)
    assert [r.path for r in target.requests] == ["/"]


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "streamed"])
async def test_a_response_over_the_size_limit_is_a_tool_error(
    target: HttpTarget, deps: ToolDependencies, declared: bool
) -> None:
    target.respond(b"x" * 5000, declare_length=declared)
    tools = fetch_tool(deps, max_response_bytes=1000).tools
    agent = agent_calling(tools, ("fetch", {"method": "GET", "url": target.url(ALLOWED)}))
    outcome = results(await agent.generate("go"))["c0"]
    assert outcome.is_error
    assert outcome.result == f"the response from {ALLOWED} is larger than 1000 bytes"


async def test_a_server_that_never_answers_is_a_timeout_error(
    target: HttpTarget, deps: ToolDependencies
) -> None:
    target.hang()
    tools = fetch_tool(deps, timeout_s=0.2).tools
    agent = agent_calling(tools, ("fetch", {"method": "GET", "url": target.url(ALLOWED)}))
    outcome = results(await agent.generate("go"))["c0"]
    assert target.received.is_set()
    assert outcome.is_error
    assert outcome.result == f"no complete response from {ALLOWED} within 0.2s"


async def test_the_tool_sends_through_the_injected_client() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="from the mock")

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        deps = ToolDependencies(http=client)
        tools = fetch_tool(deps, allowed_domains=["*.example.com"]).tools
        url = "https://api.example.com/x"
        agent = agent_calling(tools, ("fetch", {"method": "GET", "url": url}))
        outcome = results(await agent.generate("go"))["c0"]
        await deps.aclose()
        assert not client.is_closed  # the caller's client stays the caller's

    assert [str(r.url) for r in seen] == [url]
    assert outcome.result["body"] == "from the mock"


def test_bad_parameters_name_the_tool_and_the_field(deps: ToolDependencies) -> None:
    with pytest.raises(ConfigurationError) as too_small:
        fetch_tool(deps, max_response_bytes=0)
    assert str(too_small.value) == (
        "tool 'fetch' (http_request): max_response_bytes: Input should be greater than 0"
    )
    with pytest.raises(ConfigurationError, match="allowed_domain: Extra inputs are not permitted"):
        fetch_tool(deps, allowed_domain=["x"])


async def test_an_internal_address_is_a_tool_error_naming_the_host_and_why(
    target: HttpTarget,
) -> None:
    async with ToolDependencies() as guarded:  # no operator allow-list: loopback is refused
        agent = agent_calling(
            fetch_tool(guarded).tools, ("fetch", {"method": "GET", "url": target.url(ALLOWED)})
        )
        outcome = results(await agent.generate("go"))["c0"]

    assert outcome.is_error
    assert outcome.result == f"request to {ALLOWED} refused: {ALLOWED} is a loopback address"
    assert target.requests == []


REDIRECTS = StaticResolver(
    {"example.test": [[PUBLIC_V4]], "other.test": [[SECOND_PUBLIC_V4]], "six.test": [[PUBLIC_V6]]}
)


async def fetch_following(
    url: str, network: RecordingNetwork, max_redirects: int, domains: list[str]
) -> ToolResultPart:
    async with guarded_client(EgressPolicy(resolver=REDIRECTS), network=network) as client:
        deps = ToolDependencies(http=client)
        tools = fetch_tool(deps, allowed_domains=domains, max_redirects=max_redirects).tools
        agent = agent_calling(tools, ("fetch", {"method": "GET", "url": url}))
        return results(await agent.generate("go"))["c0"]


async def test_redirects_are_followed_up_to_max_redirects_to_allowed_hosts() -> None:
    network = RecordingNetwork()
    url = "http://example.test/?to=http://other.test/?to=http://example.test/done"
    outcome = await fetch_following(url, network, 2, ["example.test", "other.test"])

    assert (outcome.result["status"], outcome.result["body"]) == (200, "public content")
    assert [c.address for c in network.connects] == [PUBLIC_V4, SECOND_PUBLIC_V4, PUBLIC_V4]
    assert network.exchanges[-1].request_line == "GET /done HTTP/1.1"


async def test_a_redirect_past_the_cap_or_off_the_allow_list_is_the_result() -> None:
    past_cap, off_list = RecordingNetwork(), RecordingNetwork()
    chain = "http://example.test/?to=http://example.test/?to=http://example.test/done"
    capped = await fetch_following(chain, past_cap, 1, ["example.test"])
    elsewhere = await fetch_following(
        "http://example.test/?to=http://six.test/", off_list, 3, ["example.test"]
    )

    assert capped.result["status"] == 302
    assert capped.result["headers"]["location"] == "http://example.test/done"
    assert len(past_cap.connects) == 2
    assert (elsewhere.result["status"], elsewhere.result["headers"]["location"]) == (
        302,
        "http://six.test/",
    )
    assert off_list.addresses == {PUBLIC_V4}


async def test_a_redirect_to_an_internal_address_is_refused_even_when_allow_listed() -> None:
    network = RecordingNetwork()
    url = "http://example.test/?to=http://169.254.169.254/latest/meta-data/"
    outcome = await fetch_following(url, network, 3, ["example.test", "169.254.169.254"])

    assert outcome.is_error
    assert outcome.result == (
        "request to 169.254.169.254 refused: 169.254.169.254 is a cloud metadata service"
    )
    assert network.addresses == {PUBLIC_V4}
