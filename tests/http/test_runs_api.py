"""The /v1 run API through the ASGI app: chat, SSE events, confirm, cancel, status, conflicts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
from http_harness import ALICE, asgi_client, asgi_sse, running_app, settled
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import tool
from sqlite_databases import MigratedSqlite

NOTE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def types(frames: list[Any]) -> list[str]:
    return [f.data["type"] for f in frames]


async def test_a_message_streams_ordered_events_with_ids_and_the_seed_headers(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        response = await client.post("/v1/chat/t1", json={"message": "hello there"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    run_id = response.json()["runId"]
    assert response.status_code == 200
    request_id = stream.headers.pop("x-request-id")  # every response has one
    assert len(request_id) == 32
    assert stream.headers == {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "connection": "keep-alive",
        "x-accel-buffering": "no",
    }
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))
    assert types(frames)[0] == "run-start"
    assert frames[-1].data == {
        "type": "run-finish",
        "runId": run_id,
        "agentId": "agent-001",
        "payload": {"status": "completed", "usage": ANY},
    }
    text_out = "".join(f.data["payload"]["text"] for f in frames if f.data["type"] == "text-delta")
    assert text_out == 'You said: "hello there"'


async def test_a_second_message_is_409_while_running_and_while_suspended(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "/delay 30\nslow reply here"})
        running = await client.post("/v1/chat/t1", json={"message": "again"})
        running_status = (await client.get("/v1/threads/t1/status")).json()
        await client.post("/v1/chat/t1/cancel")
        await client.post("/v1/chat/t2", json={"message": NOTE})
        async with asgi_sse(app, "/v1/events/t2") as stream:
            await stream.until("confirmation-request")
        suspended = await client.post("/v1/chat/t2", json={"message": "again"})
        suspended_status = (await client.get("/v1/threads/t2/status")).json()

    assert (running.status_code, running.json()["error"]["code"]) == (409, "run_active")
    assert (suspended.status_code, suspended.json()["error"]["code"]) == (409, "run_active")
    assert running_status["hasActiveRun"] is True
    assert suspended_status["runId"].startswith("run_")
    assert {k: v for k, v in suspended_status.items() if k != "runId"} == {
        "hasActiveRun": False,
        "isSuspended": True,
        "entry": "http",
        "backgroundTasks": [],
    }


async def test_fifty_racing_posts_have_exactly_one_winner(url: str) -> None:
    # The winning run holds its model call until every POST has its answer, so each loser meets
    # a running thread however slowly the machine gets through the other 49: no clock involved.
    every_post_answered = asyncio.Event()

    async def held(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        await every_post_answered.wait()
        yield "done"

    def agents(store: Store) -> list[Agent]:
        return [Agent("assistant", FunctionModel(stream_function=held), memory=Memory(store))]

    async with running_app(url, agents) as app, asgi_client(app) as client:
        responses = await asyncio.gather(
            *(client.post("/v1/chat/t1", json={"message": "hello"}) for _ in range(50))
        )
        every_post_answered.set()
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    codes = sorted(r.status_code for r in responses)
    assert codes == [200] + [409] * 49
    assert types(frames).count("run-start") == 1
    assert frames[-1].data["payload"] == {"status": "completed", "usage": ANY}


async def confirmation(app: Any, thread: str) -> dict[str, Any]:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until("confirmation-request")
    payload: dict[str, Any] = frames[-1].data["payload"]
    return payload


async def test_approving_runs_the_tool_then_the_run_finishes(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        asked = await confirmation(app, "t1")
        answered = await client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1", {"Last-Event-ID": "0"}) as stream:
            frames = await stream.until("run-finish")
        notes = await client.post("/v1/chat/t1", json={"message": "/tool list_notes {}"})
        async with asgi_sse(app, "/v1/events/t1", {"Last-Event-ID": str(frames[-1].id)}) as stream:
            listed = await stream.until("run-finish")

    assert answered.json() == {"ok": True}
    assert asked["toolName"] == "save_note"
    assert asked["args"] == {"text": "buy milk"}
    assert (asked["severity"], asked["message"]) == ("warning", 'Allow "save_note" to run?')
    (result,) = [f.data for f in frames if f.data["type"] == "tool-result"]
    assert result["payload"]["result"]["text"] == "buy milk"
    assert frames[-1].data["payload"] == {"status": "completed", "usage": ANY}
    assert notes.status_code == 200
    (listing,) = [f.data for f in listed if f.data["type"] == "tool-result"]
    assert [n["text"] for n in listing["payload"]["result"]["notes"]] == ["buy milk"]


async def test_denying_turns_the_call_into_a_tool_error(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        asked = await confirmation(app, "t1")
        await client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": False})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    (error,) = [f.data for f in frames if f.data["type"] == "tool-error"]
    assert "denied" in error["payload"]["error"]
    assert "tool-result" not in types(frames)


def launch_agents(calls: list[str]) -> Any:
    @tool(requires_approval=True)
    async def launch(target: str) -> dict[str, str]:
        """Launch something irreversible."""
        calls.append(target)
        return {"launched": target}

    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("launch", {"target": "moon"}), text("launched")])
        return [Agent("assistant", model, tools=[launch], memory=Memory(store))]

    return build


async def test_ten_racing_confirms_are_answered_once_and_the_tool_runs_once(url: str) -> None:
    calls: list[str] = []
    async with running_app(url, launch_agents(calls)) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "go"})
        asked = await confirmation(app, "t1")
        responses = await asyncio.gather(
            *(
                client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": True})
                for _ in range(10)
            )
        )
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        again = await client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": True})

    assert sorted(r.status_code for r in responses) == [200] + [409] * 9
    assert calls == ["moon"]
    assert types(frames).count("tool-result") == 1
    assert (again.status_code, again.json()["error"]["code"]) == (409, "confirmation_answered")


async def test_cancel_is_idempotent_and_ends_the_run_cancelled(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "/delay 40\nmany slow words to say"})
        first = await client.post("/v1/chat/t1/cancel")
        second = await client.post("/v1/chat/t1/cancel")
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        after = await client.post("/v1/chat/t1", json={"message": "hello"})

    assert [first.json(), second.json()] == [{"ok": True}, {"ok": True}]
    assert frames[-1].data["payload"] == {
        "status": "cancelled",
        "reason": "user_cancelled",
        "usage": ANY,
    }
    assert types(frames).count("run-finish") == 1
    assert after.status_code == 200


async def test_cancel_stops_only_its_own_threads_run_on_the_shared_agent(url: str) -> None:
    slow = "/delay 20\nmany slow words to say in turn"
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": slow})
        await client.post("/v1/chat/t2", json={"message": slow})
        async with asgi_sse(app, "/v1/events/t2") as other:
            await other.next_event()  # t2's run has started on the agent t1's run uses too
            await client.post("/v1/chat/t1/cancel")
            async with asgi_sse(app, "/v1/events/t1") as cancelled:
                mine = await cancelled.until("run-finish")
            theirs = await other.until("run-finish")

    assert mine[-1].data["payload"]["status"] == "cancelled"
    assert theirs[-1].data["payload"]["status"] == "completed"
    said = "".join(f.data["payload"]["text"] for f in theirs if f.data["type"] == "text-delta")
    assert said.endswith('"many slow words to say in turn"')


async def test_cancel_while_a_confirmation_is_pending_expires_it(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        asked = await confirmation(app, "t1")
        await client.post("/v1/chat/t1/cancel")
        late = await client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        status = (await client.get("/v1/threads/t1/status")).json()

    assert late.status_code == 409
    assert frames[-1].data["payload"] == {
        "status": "cancelled",
        "reason": "user_cancelled",
        "usage": ANY,  # what the run used until it suspended (its checkpoint's count)
    }
    assert (status["hasActiveRun"], status["isSuspended"]) == (False, False)


async def test_threads_are_listed_and_deleted(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            await stream.until("run-finish")
        listed = (await client.get("/v1/threads")).json()
        deleted = await client.delete("/v1/threads/t1")
        gone = await client.get("/v1/threads/t1/messages")

    assert [t["id"] for t in listed["threads"]] == ["t1"]
    assert deleted.json() == {"ok": True}
    assert gone.status_code == 404


async def test_health_readiness_agents_and_openapi(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        health = await client.get("/healthz")
        ready = await client.get("/readyz")
        agents = await client.get("/v1/agents")
        docs = await client.get("/docs")
        schema = await client.get("/openapi.json")

    assert health.json() == {"status": "ok"}
    assert ready.json() == {"status": "ready", "role": "all", "eventDelivery": "live"}
    assert agents.json()["agents"] == [
        {
            "name": "assistant",
            "model": "runyard:demo",
            "tools": [
                "await_task",
                "calculator",
                "delegate",
                "list_notes",
                "plan",
                "save_note",
                "task_status",
            ],
            "default": True,
        }
    ]
    assert docs.status_code == 200
    assert "/v1/chat/{thread_id}" in schema.json()["paths"]


async def test_readiness_is_503_before_the_lifespan_ran(url: str) -> None:
    from http_harness import built_app

    async with built_app(url) as app, asgi_client(app) as client:
        ready = await client.get("/readyz")
        chat = await client.post("/v1/chat/t1", json={"message": "hi"}, headers=ALICE)

    assert ready.status_code == 503
    assert (chat.status_code, chat.json()["error"]["code"]) == (503, "not_ready")


async def test_cancel_does_not_wait_for_a_slow_thread_title(url: str) -> None:
    async def never(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    def agents(store: Store) -> list[Agent]:
        return [
            Agent(
                "assistant",
                "runyard:demo",
                memory=Memory(store),
                title_model=FunctionModel(never),
            )
        ]

    async with running_app(url, agents, titles=True) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "/delay 40\nplease write me a poem"})
        cancelled = await client.post("/v1/chat/t1/cancel")
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    assert cancelled.status_code == 200
    assert frames[-1].data["payload"] == {
        "status": "cancelled",
        "reason": "user_cancelled",
        "usage": ANY,
    }
    assert "thread-title-updated" not in types(frames)


async def test_the_users_message_is_in_the_history_while_its_run_still_streams(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "/delay 200\nwrite me a long poem"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            for _ in range(2):
                await stream.until("text-delta")
            history = (await client.get("/v1/threads/t1/messages")).json()
        await client.post("/v1/chat/t1/cancel")

    user, assistant = history["messages"]
    assert (user["role"], user["content"]) == ("user", "/delay 200\nwrite me a long poem")
    assert (assistant["role"], assistant["isStreaming"]) == ("assistant", True)


async def test_a_message_stored_at_once_reaches_the_model_once(url: str) -> None:
    model = scripted_model([text("hi"), text("hi again")])

    def agents(store: Store) -> list[Agent]:
        return [Agent("assistant", model, memory=Memory(store))]

    async with running_app(url, agents) as app, asgi_client(app) as client:
        for message in ("first question", "second question"):
            await client.post("/v1/chat/t1", json={"message": message})
            async with asgi_sse(app, "/v1/events/t1") as stream:
                await stream.until("run-finish")
            await settled(app, "t1")

    prompts = [
        part.content
        for request in model.requests[1]
        if isinstance(request, ModelRequest)
        for part in request.parts
        if isinstance(part, UserPromptPart)
    ]
    assert prompts == ["first question", "second question"]
