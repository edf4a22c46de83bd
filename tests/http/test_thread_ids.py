"""Thread ids over HTTP, on SQLite and PostgreSQL alike.

An id outside the rule (1-128 of ``A-Z a-z 0-9 . _ : @ -``) is 422 naming ``thread_id`` on every
route and never reaches the store. Ids are per user: two users each have their own ``t1``; an id
another user has answers exactly like an unused one (no existence oracle), and listening on an
id first claims nothing of anyone else's (no squatting).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

from runyard.faces.langgraph.path_ids import (
    ASSISTANT_ID_PATTERN,
    CHECKPOINT_ID_PATTERN,
    RUN_ID_PATTERN,
)
from runyard.ids import FILE_ID_PATTERN, REQUEST_ID_PATTERN, THREAD_ID_PATTERN
from runyard.registry import SPEC_ID_PATTERN
from runyard.service import Owner

BOB = {"X-Runyard-User": "bob"}
BOB_OWNER = Owner("acme", "bob")
NOTE = '/tool save_note {"text": "buy milk"}'
BAD_IDS = [
    "x" * 129,
    "x" * 300,
    "%00",
    "t%00",
    "a%20b",
    "%C3%A9",
    "t1%0A",
    "t%3F",
    "%E2%80%AE",
]


@pytest.fixture
def url(any_backend_url: str) -> str:
    return any_backend_url


async def _every_route(client: httpx.AsyncClient, thread_id: str) -> list[httpx.Response]:
    return [
        await client.post(f"/v1/chat/{thread_id}", json={"message": "hi"}),
        await client.post(f"/v1/chat/{thread_id}/cancel"),
        await client.get(f"/v1/events/{thread_id}"),
        await client.get(f"/v1/threads/{thread_id}/messages"),
        await client.get(f"/v1/threads/{thread_id}/status"),
        await client.delete(f"/v1/threads/{thread_id}"),
    ]


async def test_an_id_outside_the_rule_is_422_on_every_route_and_stores_nothing(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        responses = [r for bad in BAD_IDS for r in await _every_route(client, bad)]
        confirms = [
            await client.post(f"/v1/confirm/{bad}", json={"approved": True}) for bad in BAD_IDS
        ]
        store = app.state.runyard.parts.store
        threads = await store.list_threads(tenant_id="acme", resource_id="alice")
        runs = await store.list_open_runs()

    assert {r.status_code for r in responses + confirms} == {422}
    for response in responses:
        assert response.json()["error"]["code"] == "invalid_request"
        assert [f["field"] for f in response.json()["error"]["fields"]] == ["path.thread_id"]
    for response in confirms:
        assert [f["field"] for f in response.json()["error"]["fields"]] == ["path.request_id"]
    assert (threads, runs) == ([], [])


async def test_ids_at_the_edges_of_the_rule_work(url: str) -> None:
    longest = "a" * 128
    every_kind = "Az09._:@-"
    async with running_app(url) as app, asgi_client(app) as client:
        for thread_id in (longest, every_kind):
            posted = await client.post(f"/v1/chat/{thread_id}", json={"message": "hello"})
            assert posted.status_code == 200
            async with asgi_sse(app, f"/v1/events/{thread_id}") as stream:
                await stream.until("run-finish")
            await settled(app, thread_id)
            history = (await client.get(f"/v1/threads/{thread_id}/messages")).json()
            assert history["threadId"] == thread_id
        listed = (await client.get("/v1/threads")).json()

    assert sorted(t["id"] for t in listed["threads"]) == sorted([longest, every_kind])


async def test_the_openapi_document_shows_the_id_rule(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        schema = (await client.get("/openapi.json")).json()

    patterns = {
        (path, method, p["name"]): p["schema"].get("pattern")
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        for p in operation.get("parameters", [])
        if p["in"] == "path"
    }
    rules = {"thread_id": THREAD_ID_PATTERN, "request_id": REQUEST_ID_PATTERN}
    rules["agent_id"] = SPEC_ID_PATTERN
    rules["file_id"] = FILE_ID_PATTERN
    rules["assistant_id"] = ASSISTANT_ID_PATTERN
    rules["run_id"] = RUN_ID_PATTERN
    rules["checkpoint_id"] = CHECKPOINT_ID_PATTERN
    # the faces add /agui, /ai-sdk and 25 under /langgraph; /v1/files has three
    assert len(patterns) == 41
    for (_path, _method, name), pattern in patterns.items():
        assert pattern == rules[name]


async def test_two_users_each_have_their_own_thread_t1(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        alice_run = (await client.post("/v1/chat/t1", json={"message": "from alice"})).json()
        bob_run = (
            await client.post("/v1/chat/t1", json={"message": "from bob"}, headers=BOB)
        ).json()
        async with asgi_sse(app, "/v1/events/t1") as stream:
            alice_events = await stream.until("run-finish")
        async with asgi_sse(app, "/v1/events/t1", BOB) as stream:
            bob_events = await stream.until("run-finish")
        await settled(app, "t1")
        await settled(app, "t1", BOB_OWNER)
        seen = [
            (await client.get("/v1/threads/t1/messages", headers=who)).json() for who in ({}, BOB)
        ]
        listed = [(await client.get("/v1/threads", headers=who)).json() for who in ({}, BOB)]
        statuses = [
            (await client.get("/v1/threads/t1/status", headers=who)).json() for who in ({}, BOB)
        ]

    assert {e.data["runId"] for e in alice_events if e.data} == {alice_run["runId"]}
    assert {e.data["runId"] for e in bob_events if e.data} == {bob_run["runId"]}
    assert [[m["content"] for m in s["messages"] if m["role"] == "user"] for s in seen] == [
        ["from alice"],
        ["from bob"],
    ]
    assert [[m["runId"] for m in s["messages"]] for s in seen] == [
        [alice_run["runId"]] * 2,
        [bob_run["runId"]] * 2,
    ]
    assert [[t["id"] for t in mine["threads"]] for mine in listed] == [["t1"], ["t1"]]
    assert statuses == [{"hasActiveRun": False, "isSuspended": False, "backgroundTasks": []}] * 2


def _without_ids(response: httpx.Response, *ids: str) -> tuple[int, Any]:
    """The response with the probed ids blanked out, so two probes compare as equal."""
    text = response.text
    for probed in ids:
        text = text.replace(probed, "<id>")
    return response.status_code, text


async def test_another_users_thread_id_answers_exactly_like_an_unused_one(url: str) -> None:
    async with running_app(url, sse_ping_seconds=0.05) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            asked = (await stream.until("confirmation-request"))[-1].data
        assert asked is not None
        request_id = asked["payload"]["requestId"]

        async def probe(thread_id: str, confirm_id: str) -> list[tuple[int, Any]]:
            ids = (thread_id, confirm_id)
            answers = [
                await client.post(f"/v1/chat/{thread_id}/cancel", headers=BOB),
                await client.get(f"/v1/threads/{thread_id}/status", headers=BOB),
                await client.get(f"/v1/threads/{thread_id}/messages", headers=BOB),
                await client.delete(f"/v1/threads/{thread_id}", headers=BOB),
                await client.post(
                    f"/v1/confirm/{confirm_id}", json={"approved": True}, headers=BOB
                ),
            ]
            found = [_without_ids(r, *ids) for r in answers]
            async with asgi_sse(app, f"/v1/events/{thread_id}", BOB) as stream:
                first = await stream.arrived.get()
            found.append((stream.status, first))
            posted = await client.post(f"/v1/chat/{thread_id}", json={"message": "hi"}, headers=BOB)
            found.append((posted.status_code, sorted(posted.json())))
            return found

        taken = await probe("t1", request_id)
        unused = await probe("t9", "cr_00000000000000000000000000000000")
        alice_status = (await client.get("/v1/threads/t1/status")).json()
        pending = await app.state.runyard.parts.store.get_confirmation(request_id)

    assert taken == unused
    assert all(status < 500 for status, _ in taken)
    assert taken[-1] == (200, ["runId"])
    assert alice_status["isSuspended"] is True
    assert pending is not None
    assert pending.status == "pending"


async def test_listening_first_on_an_id_locks_nobody_out(url: str) -> None:
    async with (
        running_app(url, sse_ping_seconds=0.05) as app,
        asgi_client(app) as client,
        asgi_sse(app, "/v1/events/t1", BOB) as squatter,
    ):
        posted = await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1") as owner:
            mine = await owner.until("run-finish")
        await settled(app, "t1")
        squatter_saw = [await squatter.arrived.get()]
        while squatter_saw[-1].comment != "ping":  # the stream opens with its retry: field
            squatter_saw.append(await squatter.arrived.get())

    assert posted.status_code == 200
    assert {e.data["runId"] for e in mine if e.data} == {posted.json()["runId"]}
    assert [f.data for f in squatter_saw] == [None] * len(squatter_saw)
