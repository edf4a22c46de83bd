"""Thread ids belong to their owner: each user has their own ``t1``, and nobody can find,
probe or claim another's — another user's id behaves exactly like an unused one."""

from __future__ import annotations

import pytest
from service_harness import OWNER, key, service

from runyard.service import (
    ConfirmationNotFound,
    InvalidThreadId,
    Owner,
    ThreadNotFound,
    Threads,
)

BOB = Owner("acme", "bob")
TOOLS = '/tool save_note {"text": "buy milk"}'
ALICE_AT_GLOBEX = Owner("globex", "alice")


async def test_two_users_each_have_their_own_thread_t1(db_url: str) -> None:
    async with service(db_url) as svc:
        threads = Threads(svc.events, svc.store)
        await svc.runs.start(OWNER, "t1", "from alice")
        await svc.runs.start(BOB, "t1", TOOLS)
        await svc.settle("t1")
        await svc.settle("t1", BOB)
        alice = await threads.messages(OWNER, "t1")
        bob = await threads.messages(BOB, "t1")
        alice_status = await svc.runs.status(OWNER, "t1")
        bob_status = await svc.runs.status(BOB, "t1")
        listed = [await threads.list_threads(o) for o in (OWNER, BOB, ALICE_AT_GLOBEX)]
        logs = [await svc.types("t1"), await svc.types("t1", BOB)]

    assert [m["content"] for m in alice["messages"] if m["role"] == "user"] == ["from alice"]
    assert [m["content"] for m in bob["messages"] if m["role"] == "user"] == [TOOLS]
    assert (alice["threadId"], bob["threadId"]) == ("t1", "t1")
    assert not alice_status.is_suspended
    assert bob_status.is_suspended
    assert [[t["id"] for t in mine] for mine in listed] == [["t1"], ["t1"], []]
    assert "confirmation-request" not in logs[0]
    assert "confirmation-request" in logs[1]


async def test_another_users_thread_id_behaves_like_an_unused_one(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        threads = Threads(svc.events, svc.store)
        await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        request_id = await svc.request_id("t1")

        async def outcomes(thread_id: str, confirm_id: str) -> list[object]:
            found: list[object] = []
            for probe in (
                svc.runs.cancel(BOB, thread_id),
                svc.runs.status(BOB, thread_id),
                threads.messages(BOB, thread_id),
                svc.runs.confirm(BOB, confirm_id, {"approved": True}),
            ):
                try:
                    found.append(await probe)
                except (ThreadNotFound, ConfirmationNotFound) as exc:
                    found.append(type(exc))
            return found

        taken = await outcomes("t1", request_id)
        unused = await outcomes("t9", "cr_00000000000000000000000000000000")
        bobs_run = await svc.runs.start(BOB, "t1", "mine")
        await svc.settle("t1", BOB)
        alice_still = await svc.runs.status(OWNER, "t1")

    assert taken == unused
    assert taken[3] is ConfirmationNotFound
    assert bobs_run.startswith("run_")
    assert alice_still.is_suspended


async def test_listening_first_claims_nothing_of_anyone_else(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        threads = Threads(svc.events, svc.store)
        squatted = await threads.ensure(BOB, "t1")
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        alices = await svc.types("t1")
        bobs = await svc.types("t1", BOB)

    assert squatted.id == key("t1", BOB)
    assert (alices[0], alices[-1]) == ("run-start", "run-finish")
    assert bobs == []


@pytest.mark.parametrize("thread_id", ["", "a b", "a/b", "x" * 129, "t\x00", "é", "t1\n"])
async def test_a_thread_id_outside_the_rule_is_refused_before_the_store(
    sqlite_url: str, thread_id: str
) -> None:
    async with service(sqlite_url) as svc:
        threads = Threads(svc.events, svc.store)
        for call in (
            svc.runs.start(OWNER, thread_id, "hi"),
            svc.runs.cancel(OWNER, thread_id),
            svc.runs.status(OWNER, thread_id),
            svc.runs.delete_thread(OWNER, thread_id),
            threads.messages(OWNER, thread_id),
            threads.ensure(OWNER, thread_id),
        ):
            with pytest.raises(InvalidThreadId):
                await call
        assert await svc.store.list_threads(tenant_id="acme", resource_id="alice") == []


@pytest.mark.parametrize(("tenant", "user"), [("a/b", "u"), ("t", "a/b"), ("", "u"), ("t", "")])
def test_an_owner_cannot_contain_a_slash(tenant: str, user: str) -> None:
    with pytest.raises(ValueError, match="without '/'"):
        Owner(tenant, user)
