"""Isolation, proven by a generated matrix, with ``RUNYARD_AUTH=keys`` and real keys issued through
the store: two tenants (``ta``, ``tb``) by two users each — ``tb`` has a user ``u1`` too — plus a
caller without a key, a revoked key and an expired one, against every endpoint.

User ``ta/u1`` owns a thread whose run waits for an approval. For every other caller and every
endpoint the matrix asks for that thread (or that confirmation) and for an id nobody has: the
status is the one the table expects, and the two answers are the same body (the ids swapped).
Then the owner's own cells show the key works for its owner and that nothing the others did
reached the thread: the approval is still pending and is answered once, by the owner.
Routing, the catalog and the admin API are scoped to the tenant: ``ta`` sees the shared agent
and its own, never ``tb``'s, and an agent of ``tb`` is exactly an unknown one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from http_harness import running_app
from typer.testing import CliRunner

from runyard.cli import app as cli
from runyard.http.state import AppState
from runyard.ids import now_ms
from runyard.service import Owner, reload_catalog
from runyard.service.api_keys import issue_api_key

CATALOG = """\
kind: agent
id: helper
model: runyard:demo
instructions: Help.
tools: [save_note, list_notes, calculator]
---
kind: agent
id: only-a
tenant: ta
model: runyard:demo
instructions: Tenant A's agent.
---
kind: agent
id: only-b
tenant: tb
model: runyard:demo
instructions: Tenant B's agent.
---
kind: routing
default_agent: helper
"""
OWNER = "a1"
OWNED_THREAD = "t-owned"
UNKNOWN_THREAD = "t-nobody"  # as long as OWNED_THREAD: the bodies may differ only by the id
UNKNOWN_REQUEST = "cr_" + "0" * 32
SPEC = {"model": "runyard:demo", "instructions": "Changed."}

# Each caller: tenant, user, role; None = no key at all; "revoked" and "expired" are real keys.
MEMBERS = {
    "a1": ("ta", "u1", "member"),
    "a2": ("ta", "u2", "member"),
    "b1": ("tb", "u1", "member"),
    "b2": ("tb", "u2", "member"),
    "admin_a": ("ta", "boss", "admin"),
    "operator": ("ops", "root", "admin"),
}
REFUSED = ("no_key", "revoked", "expired", "malformed")
OTHERS = [name for name in MEMBERS if name != OWNER]


@dataclass
class World:
    app: FastAPI
    tokens: dict[str, str | None]
    request_id: str
    version_b: str


Call = Callable[[httpx.AsyncClient, str], Awaitable[httpx.Response]]


def endpoints(world: World, caller: str) -> dict[str, tuple[Call, str, str]]:
    """Each endpoint: how to call it with an id, the id of something that is not the caller's
    (A1's thread or confirmation, another tenant's agent or version) and an id nobody has."""
    thread = (OWNED_THREAD, UNKNOWN_THREAD)
    request = (world.request_id, UNKNOWN_REQUEST)
    # another tenant's agent, for callers of either tenant (and the operator's, which has none)
    foreign = ("only-a" if MEMBERS.get(caller, ("ta",))[0] == "tb" else "only-b", "no-such")
    return {
        # first: the listings, before this caller opens a thread of A1's id (events, below)
        "threads": (lambda c, _: c.get("/v1/threads"), "", ""),
        "catalog": (lambda c, _: c.get("/v1/catalog"), "", ""),
        "agents": (lambda c, _: c.get("/v1/agents"), "", ""),
        "messages": (lambda c, t: c.get(f"/v1/threads/{t}/messages"), *thread),
        "status": (lambda c, t: c.get(f"/v1/threads/{t}/status"), *thread),
        "confirm": (lambda c, r: c.post(f"/v1/confirm/{r}", json={"approved": True}), *request),
        "cancel": (lambda c, t: c.post(f"/v1/chat/{t}/cancel"), *thread),
        "delete": (lambda c, t: c.delete(f"/v1/threads/{t}"), *thread),
        # a thread id the caller has not used is theirs to open: the same empty stream
        "events": (lambda c, t: c.get(f"/v1/events/{t}"), *thread),
        "chat_agent": (
            lambda c, a: c.post("/v1/chat/t-agent", json={"message": "hi", "agentId": a}),
            *foreign,
        ),
        "route": (lambda c, a: c.post("/v1/route", json={"agentId": a}), *foreign),
        # tb's agent, tb's stored version: the operator's to manage, nobody else's
        "admin_versions": (
            lambda c, t: c.get(f"/v1/admin/agents/only-b/versions?tenant={t}"),
            "tb",
            "tz",
        ),
        "admin_activate": (
            lambda c, v: c.post("/v1/admin/agents/only-b/activate", json={"version": v}),
            world.version_b,
            "0" * len(world.version_b),
        ),
        "admin_put": (
            lambda c, t: c.put("/v1/admin/agents/only-b", json={**SPEC, "tenant": t}),
            "tb",
            "tz",
        ),
        # a new thread of the caller's own: a run starts
        "chat_new": (lambda c, n: c.post(f"/v1/chat/t-new{n}", json={"message": "hi"}), "1", "2"),
    }


def expected(caller: str, endpoint: str) -> int:
    """The status of the caller's cell for what is not theirs (and, but for the operator's
    admin cells, for the unknown id too)."""
    if caller in REFUSED:
        return 401
    role = MEMBERS[caller][2]
    if endpoint.startswith("admin_"):
        if role != "admin":
            return 403  # admin_required
        if caller == "operator":
            return 200
        return 404 if endpoint == "admin_activate" else 403  # tenant_forbidden
    return {
        "messages": 404,
        "status": 404,
        "confirm": 404,
        "delete": 404,
        "chat_agent": 404,
        "route": 404,
        "cancel": 200,
        "events": 200,
        "threads": 200,
        "catalog": 200,
        "agents": 200,
        "chat_new": 200,
    }[endpoint]


@asynccontextmanager
async def client(app: FastAPI, token: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://runyard", headers=headers
    ) as c:
        yield c


@asynccontextmanager
async def world(url: str, tmp_path: Path) -> AsyncIterator[World]:
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(CATALOG)
    settings = {
        "auth": "keys",
        "operator_tenant": "ops",
        "catalog_dir": str(catalog),
        "instance_id": "matrix",
        "admin_token": "ignored-in-keys-mode",
    }
    async with running_app(url, settings=settings, sse_follow=False) as app:
        state: AppState = app.state.runyard
        assert state.parts is not None
        store = state.parts.store
        tokens: dict[str, str | None] = {}
        for name, (tenant, user, role) in MEMBERS.items():
            issued = await issue_api_key(store, tenant_id=tenant, user_id=user, role=role)
            tokens[name] = issued.token
        revoked = await issue_api_key(store, tenant_id="ta", user_id="u1")
        await store.revoke_api_key(revoked.key.key_id, at=now_ms())
        expired = await issue_api_key(
            store,
            tenant_id="ta",
            user_id="u1",
            expires_in=timedelta(hours=1),
            now=now_ms() - 7_200_000,
        )
        tokens |= {
            "no_key": None,
            "revoked": revoked.token,
            "expired": expired.token,
            "malformed": "ryk_" + "x" * 10,
        }
        async with client(app, tokens["operator"]) as operator:
            stored = await operator.put("/v1/admin/agents/only-b", json={**SPEC, "tenant": "tb"})
            assert stored.status_code == 200, stored.text
        async with client(app, tokens[OWNER]) as owner:
            request_id = await pending_confirmation(owner)
        yield World(app, tokens, request_id, stored.json()["version"])


async def pending_confirmation(owner: httpx.AsyncClient) -> str:
    """A1's run on its thread, suspended on ``save_note``: the confirmation's requestId."""
    note = '/tool save_note {"text": "a1 private note"}'
    started = await owner.post(f"/v1/chat/{OWNED_THREAD}", json={"message": note})
    assert started.status_code == 200, started.text
    async with asyncio.timeout(20):
        while not await suspended(owner):  # noqa: ASYNC110  # polling the API is the point
            await asyncio.sleep(0.02)
    stream = await owner.get(f"/v1/events/{OWNED_THREAD}")
    (request_id,) = [
        event["payload"]["requestId"]
        for event in sse_events(stream.text)
        if event["type"] == "confirmation-request"
    ]
    return str(request_id)


async def finished(caller: httpx.AsyncClient, thread: str) -> None:
    async with asyncio.timeout(20):
        while (await caller.get(f"/v1/threads/{thread}/status")).json()["hasActiveRun"]:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


async def listed_notes(app: FastAPI, token: str | None) -> str:
    """The events of a run of ``list_notes`` by the key's owner, as text."""
    async with client(app, token) as caller:
        started = await caller.post("/v1/chat/t-notes", json={"message": "/tool list_notes {}"})
        assert started.status_code == 200, started.text
        await finished(caller, "t-notes")
        return (await caller.get("/v1/events/t-notes")).text


async def suspended(owner: httpx.AsyncClient) -> bool:
    status = await owner.get(f"/v1/threads/{OWNED_THREAD}/status")
    return bool(status.json()["isSuspended"])


def sse_events(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line.removeprefix("data: "))
        for line in text.splitlines()
        if line.startswith("data: ")
    ]


def same_answer(owned: httpx.Response, unknown: httpx.Response, ids: tuple[str, str]) -> bool:
    """The two answers are one: same status and body once A1's id reads as the unknown one
    (a new run's id differs by nature: only its shape is compared)."""
    if owned.status_code != unknown.status_code:
        return False
    if "runId" in owned.text:
        return owned.json().keys() == unknown.json().keys()
    return not ids[0] or owned.text.replace(ids[0], ids[1]) == unknown.text


async def test_every_caller_reaches_its_own_and_nothing_of_anyone_else(
    any_backend_url: str, tmp_path: Path
) -> None:
    async with world(any_backend_url, tmp_path) as w:
        wrong: list[str] = []
        unauthenticated: set[str] = set()
        cells = 0
        for caller in [*REFUSED, *OTHERS]:
            async with client(w.app, w.tokens[caller]) as c:
                for name, (call, owned_id, unknown_id) in endpoints(w, caller).items():
                    owned = await call(c, owned_id)
                    unknown = await call(c, unknown_id)
                    cells += 1
                    want = expected(caller, name)
                    # the operator may manage tb's agents: for it they are not unknown ones
                    compare = not (caller == "operator" and name.startswith("admin_"))
                    if owned.status_code != want or (
                        compare and not same_answer(owned, unknown, (owned_id, unknown_id))
                    ):
                        wrong.append(
                            f"{caller} {name}: want {want}, got {owned.status_code} "
                            f"{owned.text[:200]} / unknown id {unknown.status_code} "
                            f"{unknown.text[:200]}"
                        )
                    if caller in REFUSED:
                        assert owned.headers.get("www-authenticate") == "Bearer"
                        unauthenticated.add(owned.text)
                    elif name in ("threads", "catalog", "agents"):
                        wrong += leaks(caller, name, owned.json())
        assert not wrong, "\n".join(wrong)
        assert cells == (len(REFUSED) + len(OTHERS)) * 15
        (one_body,) = unauthenticated  # missing, malformed, revoked, expired: one answer
        assert json.loads(one_body)["error"]["code"] == "unauthenticated"

        async with client(w.app, w.tokens[OWNER]) as owner:
            status = (await owner.get(f"/v1/threads/{OWNED_THREAD}/status")).json()
            messages = await owner.get(f"/v1/threads/{OWNED_THREAD}/messages")
            listed = (await owner.get("/v1/threads")).json()
            busy = await owner.post(f"/v1/chat/{OWNED_THREAD}", json={"message": "again"})
            confirmed = await owner.post(f"/v1/confirm/{w.request_id}", json={"approved": True})
            again = await owner.post(f"/v1/confirm/{w.request_id}", json={"approved": True})
            admin = await owner.get("/v1/admin/agents/only-a/versions?tenant=ta")
            await finished(owner, OWNED_THREAD)
        # the note the owner approved is the owner's: the same user id in the other tenant, and
        # the other user of the tenant, list none of it
        notes = {
            caller: await listed_notes(w.app, w.tokens[caller]) for caller in (OWNER, "a2", "b1")
        }

    assert status["isSuspended"], "another caller ended or answered the owner's run"
    assert "a1 private note" in messages.text
    assert OWNED_THREAD in [t["id"] for t in listed["threads"]]
    assert busy.status_code == 409
    assert confirmed.status_code == 200, confirmed.text  # still pending: nobody else answered
    assert again.status_code == 409
    assert (admin.status_code, admin.json()["error"]["code"]) == (403, "admin_required")
    assert "a1 private note" in notes[OWNER]
    assert "a1 private note" not in notes["a2"] + notes["b1"]


def leaks(caller: str, endpoint: str, body: dict[str, Any]) -> list[str]:
    """What a listing shows that is not the caller's: A1's thread, another tenant's agent.
    The agent names are checked too: a foreign agent's name must not appear under no tenant."""
    tenant = MEMBERS[caller][0]
    if endpoint == "threads":
        ids = [t["id"] for t in body["threads"]]
        return [f"{caller} threads lists {OWNED_THREAD}"] if OWNED_THREAD in ids else []
    if endpoint == "agents":
        seen = {(a["name"], a.get("tenant")) for a in body["agents"]}
    else:
        seen = {(s["id"], s["tenant"]) for s in body["specs"] if s["kind"] == "agent"}
        seen |= {(e["agentId"], e["tenant"]) for e in body["loaded"]}
    others = {"only-a", "only-b"} - {f"only-{tenant[-1]}"}
    foreign = sorted(f"{a}@{t}" for a, t in seen if t not in (None, tenant) or a in others)
    return [f"{caller} catalog shows {foreign}"] if foreign else []


async def test_a_tenant_admin_manages_only_its_own_tenant_and_the_operator_every_one(
    tmp_path: Path,
) -> None:
    async with world(f"sqlite:///{tmp_path / 'runyard.db'}", tmp_path) as w:
        async with client(w.app, w.tokens["admin_a"]) as admin_a:
            other = await admin_a.get("/v1/admin/agents/only-b/versions?tenant=tb")
            shared = await admin_a.get("/v1/admin/agents/helper/versions")
            put_shared = await admin_a.put("/v1/admin/agents/helper", json=SPEC)
            put_other = await admin_a.put("/v1/admin/agents/only-b", json={**SPEC, "tenant": "tb"})
            drop_other = await admin_a.delete("/v1/admin/agents/only-b/active?tenant=tb")
            own = await admin_a.get("/v1/admin/agents/only-a/versions?tenant=ta")
        async with client(w.app, w.tokens["operator"]) as operator:
            operator_shared = await operator.put("/v1/admin/agents/helper", json=SPEC)

    for refused, field in (
        (other, "query.tenant"),
        (shared, "query.tenant"),
        (put_shared, "body.tenant"),
        (put_other, "body.tenant"),
        (drop_other, "query.tenant"),
    ):
        error = refused.json()["error"]
        assert (refused.status_code, error["code"], error["field"]) == (
            403,
            "tenant_forbidden",
            field,
        )
    assert own.status_code == 200
    assert operator_shared.status_code == 200, operator_shared.text


async def test_only_the_operators_admins_see_the_rejected_catalog_files(tmp_path: Path) -> None:
    seen: dict[str, list[Any]] = {}
    async with world(f"sqlite:///{tmp_path / 'runyard.db'}", tmp_path) as w:
        (tmp_path / "agents" / "broken.yaml").write_text("kind: agent\nid: x\ncolour: red\n")
        await reload_catalog(w.app.state.runyard.parts.catalog)
        for name in ("a1", "admin_a", "operator"):
            async with client(w.app, w.tokens[name]) as caller:
                seen[name] = (await caller.get("/v1/catalog")).json()["rejected"]

    assert seen["a1"] == seen["admin_a"] == []
    assert [rejected["file"] for rejected in seen["operator"]] == [
        str(tmp_path / "agents" / "broken.yaml")
    ]


@pytest.mark.parametrize("auth", ["none", "keys"])
async def test_identity_headers_are_refused_unless_a_proxy_is_trusted(
    auth: str, tmp_path: Path
) -> None:
    settings = {"auth": auth}
    async with running_app(f"sqlite:///{tmp_path / 'r.db'}", settings=settings) as app:
        state: AppState = app.state.runyard
        assert state.parts is not None
        key = await issue_api_key(state.parts.store, tenant_id="ta", user_id="u1")
        async with client(app, key.token if auth == "keys" else None) as c:
            plain = await c.get("/v1/threads")
            spoofed = await c.get("/v1/threads", headers={"X-Runyard-User": "someone-else"})

    assert plain.status_code == 200
    error = spoofed.json()["error"]
    assert (spoofed.status_code, error["code"], error["field"]) == (
        400,
        "untrusted_identity_header",
        "X-Runyard-User",
    )
    assert f"RUNYARD_AUTH={auth}" in error["message"]


async def test_without_authentication_every_request_is_the_default_tenant_and_user(
    tmp_path: Path,
) -> None:
    async with running_app(f"sqlite:///{tmp_path / 'r.db'}", settings={"auth": "none"}) as app:
        async with client(app, None) as c:
            started = await c.post("/v1/chat/t1", json={"message": "hello"})
            listed = (await c.get("/v1/threads")).json()
        state: AppState = app.state.runyard
        assert state.parts is not None
        default_threads = await state.parts.threads.list_threads(Owner())

    assert started.status_code == 200
    assert [t["id"] for t in listed["threads"]] == ["t1"]
    assert [t["id"] for t in default_threads] == ["t1"]


async def test_me_says_whom_the_caller_acts_for_in_every_mode(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    for auth in ("none", "proxy", "keys"):
        url = f"sqlite:///{tmp_path / f'{auth}.db'}"
        async with running_app(url, settings={"auth": auth}) as app:
            state: AppState = app.state.runyard
            assert state.parts is not None
            key = await issue_api_key(state.parts.store, tenant_id="ta", user_id="u1")
            proxied = {"X-Runyard-Tenant": "tp", "X-Runyard-User": "up"}
            headers = proxied if auth == "proxy" else {}
            async with client(app, key.token if auth == "keys" else None) as c:
                seen[auth] = (await c.get("/v1/me", headers=headers)).json()
            async with client(app, None) as anonymous:
                seen[f"{auth} without a key"] = (await anonymous.get("/v1/me")).status_code

    assert seen["none"] == {"auth": "none", "tenant": "default", "user": "default"}
    assert seen["proxy"] == {"auth": "proxy", "tenant": "tp", "user": "up"}
    assert seen["keys"] == {
        "auth": "keys",
        "tenant": "ta",
        "user": "u1",
        "role": "member",
        "keyId": key.key.key_id,
    }
    assert key.token not in json.dumps(seen["keys"])  # the public id, never the key
    assert seen["keys without a key"] == 401
    assert seen["none without a key"] == 200


async def test_a_key_made_on_the_cli_works_on_every_replica_until_revoked_there(
    any_backend_url: str,
) -> None:
    settings = {"auth": "keys"}
    async with (
        running_app(any_backend_url, settings={**settings, "instance_id": "one"}) as one,
        running_app(any_backend_url, settings={**settings, "instance_id": "two"}) as two,
    ):
        token = (
            await keys_cli(any_backend_url, "create", "--tenant", "ta", "--user", "u1")
        ).strip()
        async with client(one, token) as first, client(two, token) as second:
            started = await first.post("/v1/chat/t1", json={"message": "hello"})
            seen = await second.get("/v1/threads/t1/status")
            await keys_cli(any_backend_url, "revoke", token[:16])
            after = [await first.get("/v1/threads"), await second.get("/v1/threads")]

    assert started.status_code == 200, started.text
    assert seen.status_code == 200, seen.text  # the other replica: the same owner's thread
    assert [r.status_code for r in after] == [401, 401]


async def keys_cli(url: str, *args: str) -> str:
    """``runyard keys ARGS --url URL`` (in a thread: the command runs its own event loop)."""
    result = await asyncio.to_thread(CliRunner().invoke, cli, ["keys", *args, "--url", url])
    assert result.exit_code == 0, result.output
    return result.stdout
