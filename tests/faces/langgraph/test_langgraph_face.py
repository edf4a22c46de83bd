"""The LangGraph face's assistants, threads, state and refusals through ``langgraph_sdk``'s sync
client on a real server with a catalog: agents as assistants (``agent@version`` too), threads
created, found, updated and deleted, a thread's state and history, ``runs.wait`` and
``runs.create`` + ``join``, stateless runs, ``multitask_strategy`` on runyard's one run per
thread, what runyard refuses (each a 4xx naming the field, in LangGraph Server's
``{"detail"}`` body), and API keys as on ``/v1``."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from langgraph_sdk.errors import (
    AuthenticationError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    UnprocessableEntityError,
)

from faces.faces_server import serving, thread_events
from runyard.models.demo_script import demo_png
from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store

CATALOG = """\
kind: agent
id: assistant
model: runyard:demo
description: runyard's assistant
instructions: You are runyard's assistant.
tools: [calculator, list_notes, save_note]
---
kind: agent
id: limited
model: runyard:demo
instructions: One run a minute.
limits: {requests_per_minute: 1}
---
kind: routing
default_agent: assistant
"""
SLOW = "/delay 200\n" + " ".join(["slowly"] * 200)
NOTE = '/tool save_note {"text": "milk"}'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("langgraph-face")
    (tmp / "agents").mkdir()
    (tmp / "agents" / "agents.yaml").write_text(CATALOG)
    with serving(tmp, catalog_dir=str(tmp / "agents")) as url:
        yield url


@pytest.fixture
def client(base: str) -> Iterator[SyncLangGraphClient]:
    given = get_sync_client(url=f"{base}/langgraph", api_key=None)
    yield given
    given.close()


def said(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def test_the_catalogs_agents_are_assistants(client: SyncLangGraphClient) -> None:
    found = client.assistants.search()
    assistant = client.assistants.get("assistant")
    version = assistant["metadata"]["runyard_version"]
    pinned = client.assistants.get(f"assistant@{version}")
    graph = client.assistants.get_graph("assistant")
    schemas = client.assistants.get_schemas("assistant")

    assert [a["assistant_id"] for a in found] == ["assistant", "limited"]
    assert [a["graph_id"] for a in client.assistants.search(graph_id="limited")] == ["limited"]
    assert client.assistants.count() == 2
    assert assistant["description"] == "runyard's assistant"
    assert assistant["metadata"]["tools"] == ["calculator", "list_notes", "save_note"]
    assert pinned["assistant_id"] == f"assistant@{version}"
    assert [n["id"] for n in graph["nodes"]] == ["__start__", "model", "tools", "__end__"]
    assert schemas["state_schema"]["required"] == ["messages"]
    assert client.assistants.get_subgraphs("assistant") == {}


def test_an_unknown_assistant_is_a_404_with_langgraphs_detail(
    client: SyncLangGraphClient,
) -> None:
    with pytest.raises(NotFoundError) as raised:
        client.assistants.get("nobody")

    assert raised.value.body == {
        "detail": "assistant 'nobody' not found: no agent of that id is served",
        "code": "agent_not_found",
        "param": None,
    }


def test_threads_are_created_found_updated_and_deleted(client: SyncLangGraphClient) -> None:
    created = client.threads.create(thread_id="lg-crud", metadata={"team": "a"})
    again = client.threads.create(thread_id="lg-crud", if_exists="do_nothing")
    with pytest.raises(ConflictError) as twice:
        client.threads.create(thread_id="lg-crud")
    updated = client.threads.update("lg-crud", metadata={"stage": "b"})
    found = client.threads.search(metadata={"team": "a"})
    client.threads.delete("lg-crud")

    assert (created["thread_id"], created["status"], created["metadata"]) == (
        "lg-crud",
        "idle",
        {"team": "a"},
    )
    assert again["thread_id"] == "lg-crud"
    assert twice.value.body["code"] == "thread_exists"
    assert updated["metadata"] == {"team": "a", "stage": "b"}
    assert [t["thread_id"] for t in found] == ["lg-crud"]
    with pytest.raises(NotFoundError):
        client.threads.get("lg-crud")


def test_wait_answers_the_values_and_state_and_history_follow_the_log(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    first = client.runs.wait(thread_id, "assistant", input=said("hello"))
    second = client.runs.wait(thread_id, "assistant", input=said("again"))
    state = client.threads.get_state(thread_id)
    history = client.threads.get_history(thread_id)
    earlier = client.threads.get_state(thread_id, checkpoint_id=history[1]["checkpoint_id"])
    before = client.threads.get_history(thread_id, before=history[0]["checkpoint"])

    assert [m["type"] for m in first["messages"]] == ["human", "ai"]
    assert second["messages"][:2] == first["messages"]
    assert state["values"] == second
    assert state["next"] == []
    assert [h["values"] for h in history] == [second, first]
    assert earlier["values"] == first
    assert [h["values"] for h in before] == [first]
    assert client.threads.get(thread_id)["values"] == second


def test_create_then_join_and_the_threads_runs(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    run = client.runs.create(thread_id, "assistant", input=said("hello"))
    joined = client.runs.join(thread_id, run["run_id"])

    assert run["status"] in ("pending", "running")
    assert [m["type"] for m in joined["messages"]] == ["human", "ai"]
    assert client.runs.get(thread_id, run["run_id"])["status"] == "success"
    assert [r["run_id"] for r in client.runs.list(thread_id)] == [run["run_id"]]
    with pytest.raises(NotFoundError):
        client.runs.get(thread_id, "run_nobody")


def test_the_threads_runs_page_newest_first_across_snapshots_and_the_log(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    finished = []
    for n in range(3):
        finished.append(client.runs.create(thread_id, "assistant", input=said(f"hi {n}")))
        client.runs.join(thread_id, finished[-1]["run_id"])  # ended, so snapshotted
    held = client.runs.create(thread_id, "assistant", input=said(NOTE))
    client.runs.join(thread_id, held["run_id"])  # waits for its answer: in the log only
    newest_first = [held["run_id"], *reversed([r["run_id"] for r in finished])]

    def page(offset: int, limit: int) -> list[str]:
        return [r["run_id"] for r in client.runs.list(thread_id, limit=limit, offset=offset)]

    assert page(0, 10) == newest_first
    assert page(0, 2) + page(2, 2) == newest_first
    assert page(1, 1) == newest_first[1:2]
    assert page(10**20, 10) == []


def test_a_stateless_run_gets_a_thread_of_its_own(client: SyncLangGraphClient) -> None:
    values = client.runs.wait(None, "assistant", input=said("hello"))

    assert [m["type"] for m in values["messages"]] == ["human", "ai"]


def test_a_failed_run_waits_into_langgraphs_error(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    answered = client.runs.wait(thread_id, "assistant", input=said("/fail 400"), raise_error=False)
    parts = list(client.runs.stream(thread_id, "assistant", input=said("/fail 400")))

    assert answered["__error__"]["error"] == "run_failed"
    assert client.threads.get(thread_id)["status"] == "error"
    assert [p.event for p in parts][-2:] == ["error", "end"]
    assert parts[-2].data["error"] == "run_failed"


def test_multitask_strategies_on_one_run_per_thread(client: SyncLangGraphClient, base: str) -> None:
    thread_id = client.threads.create()["thread_id"]
    slow = client.runs.create(thread_id, "assistant", input=said(SLOW))

    with pytest.raises(ConflictError) as rejected:
        client.runs.create(thread_id, "assistant", input=said("next"))
    with pytest.raises(ConflictError) as enqueued:
        client.runs.create(thread_id, "assistant", input=said("next"), multitask_strategy="enqueue")
    with pytest.raises(UnprocessableEntityError) as rolled_back:
        client.runs.create(
            thread_id, "assistant", input=said("next"), multitask_strategy="rollback"
        )
    interrupted = client.runs.wait(
        thread_id, "assistant", input=said("next"), multitask_strategy="interrupt"
    )

    assert rejected.value.body["code"] == "run_active"
    assert "does not queue" in enqueued.value.message
    assert rolled_back.value.param == "multitask_strategy"
    assert interrupted["messages"][-2]["content"] == "next"
    assert thread_events(base, thread_id, slow["run_id"])[-1]["payload"]["status"] == "cancelled"
    assert client.runs.get(thread_id, slow["run_id"])["status"] == "interrupted"


@pytest.mark.parametrize(
    ("request_fields", "param"),
    [
        ({"interrupt_before": ["tools"]}, "interrupt_before"),
        ({"interrupt_after": "*"}, "interrupt_after"),
        ({"checkpoint_id": "3"}, "checkpoint_id"),
        ({"webhook": "http://127.0.0.1:9/hook"}, "webhook"),
        ({"stream_mode": "debug"}, "stream_mode"),
        ({"command": {"goto": "model"}}, "command.goto"),
        ({"assistant_id": "no such agent!"}, "assistant_id"),
    ],
)
def test_what_runyard_cannot_do_is_a_422_naming_the_field(
    client: SyncLangGraphClient, request_fields: dict[str, Any], param: str
) -> None:
    thread_id = client.threads.create()["thread_id"]
    fields = {"assistant_id": "assistant", "input": said("hello"), **request_fields}

    with pytest.raises(UnprocessableEntityError) as raised:
        client.runs.create(thread_id, **fields)

    assert raised.value.param == param
    assert raised.value.message.startswith(f"{param}: ")


def test_update_state_is_refused_for_a_runyard_agent(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]

    with pytest.raises(UnprocessableEntityError) as raised:
        client.threads.update_state(thread_id, {"messages": []})

    assert raised.value.param == "values"
    assert "written only by its runs" in raised.value.message


def test_an_unknown_thread_is_a_404_and_a_bad_thread_id_a_422(
    client: SyncLangGraphClient,
) -> None:
    with pytest.raises(NotFoundError) as unknown:
        client.threads.get_state("nobody")
    with pytest.raises(UnprocessableEntityError) as bad:
        client.threads.get("has space")

    assert unknown.value.body["code"] == "thread_not_found"
    assert bad.value.param == "path.thread_id"


def test_a_limit_is_a_429(client: SyncLangGraphClient) -> None:
    client.runs.wait(None, "limited", input=said("one"))

    with pytest.raises(RateLimitError) as raised:
        client.runs.create(None, "limited", input=said("two"))

    assert raised.value.body["code"] == "rate_limited"


def test_a_waiting_approval_shows_on_the_thread_and_its_resume_wakes_it(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    waiting = client.runs.wait(thread_id, "assistant", input=said(NOTE))
    thread = client.threads.get(thread_id)

    (interrupt,) = waiting["__interrupt__"]
    assert thread["status"] == "interrupted"
    assert thread["interrupts"] == {interrupt["id"]: [interrupt]}
    answered = client.runs.wait(thread_id, "assistant", command={"resume": True})
    assert answered["messages"][-2]["status"] == "success"
    assert client.threads.get(thread_id)["status"] == "idle"


async def _issue_key(url: str) -> str:
    store = await open_store(url)
    try:
        return (await issue_api_key(store, tenant_id="acme", user_id="u")).token
    finally:
        await store.close()


def test_api_keys_are_v1s_sent_as_the_sdks_api_key(tmp_path: Path) -> None:
    key = asyncio.run(_issue_key(f"sqlite:///{tmp_path / 'runyard.db'}"))
    with serving(tmp_path, auth="keys") as base:
        keyed = get_sync_client(url=f"{base}/langgraph", api_key=key)
        bearer = get_sync_client(
            url=f"{base}/langgraph", api_key=None, headers={"Authorization": f"Bearer {key}"}
        )
        nobody = get_sync_client(url=f"{base}/langgraph", api_key="ryk_wrong")
        try:
            thread_id = keyed.threads.create()["thread_id"]
            values = bearer.runs.wait(thread_id, "assistant", input=said("hello"))
            with pytest.raises(AuthenticationError) as refused:
                nobody.assistants.search()
        finally:
            for client in (keyed, bearer, nobody):
                client.close()
        listed = httpx.get(f"{base}/v1/threads", headers={"Authorization": f"Bearer {key}"})

    assert [m["type"] for m in values["messages"]] == ["human", "ai"]
    assert refused.value.body["code"] == "unauthenticated"
    assert [t["id"] for t in listed.json()["threads"]] == [thread_id]


PNG = base64.b64encode(demo_png()).decode()


def test_an_image_block_reaches_the_model_and_stays_in_the_human_message(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    content = [
        {"type": "text", "text": "What is this?\n/image"},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
    ]

    values = client.runs.wait(
        thread_id, "assistant", input={"messages": [{"role": "user", "content": content}]}
    )

    human, answer = values["messages"]
    assert [b["type"] for b in human["content"]] == ["text", "image"]
    assert human["content"][1]["base64"] == PNG
    assert answer["content"].startswith('You said: "What is this?" and attached: an image')
    assert client.threads.get_state(thread_id)["values"]["messages"][0] == human


def test_a_content_block_runyard_cannot_take_is_refused_naming_it(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    content = [{"type": "text", "text": "hi"}, {"type": "hologram"}]

    with pytest.raises(UnprocessableEntityError) as refused:
        client.runs.create(
            thread_id, "assistant", input={"messages": [{"role": "user", "content": content}]}
        )

    assert refused.value.param == "input.messages.0.content.1"
