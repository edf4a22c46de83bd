"""The LangGraph face's runs through ``langgraph_sdk``'s async client on a real server: every
stream mode named as LangGraph names it (``metadata`` first, ``end`` last), an approval that
interrupts the run and ``command.resume`` that carries it on (approved, rejected with a message,
the call's arguments edited), a cancelled run, and a stream rejoined after ``Last-Event-ID``.
The runs are ordinary runyard runs, on the thread's ``/v1`` event log."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import UnprocessableEntityError

from faces.faces_server import PLAN_AND_DELEGATE, serving, thread_events

CALC = '/tool calculator {"expression": "2+3*4"}'
NOTE = '/tool save_note {"text": "milk"}'
SLOW = "/delay 200\n" + " ".join(["slowly"] * 200)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("langgraph")) as url:
        yield url


@pytest.fixture
async def client(base: str) -> AsyncIterator[LangGraphClient]:
    given = get_client(url=f"{base}/langgraph", api_key=None)
    yield given
    await given.aclose()


def said(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def streamed(client: LangGraphClient, thread_id: str, **request: Any) -> list[Any]:
    parts = [p async for p in client.runs.stream(thread_id, "assistant", **request)]
    assert parts[0].event == "metadata"
    assert parts[-1].event == "end"
    assert [p.event for p in parts].count("end") == 1
    return parts


def kinds(values: dict[str, Any]) -> list[str]:
    return [m["type"] for m in values["messages"]]


async def test_values_mode_streams_the_state_after_each_step(client: LangGraphClient) -> None:
    thread = await client.threads.create()
    parts = await streamed(client, thread["thread_id"], input=said(CALC), stream_mode="values")

    values = [p.data for p in parts if p.event == "values"]
    assert [kinds(v) for v in values] == [
        ["human"],
        ["human", "ai"],
        ["human", "ai", "tool"],
        ["human", "ai", "tool", "ai"],
    ]
    final = values[-1]["messages"]
    assert final[0]["content"] == CALC
    assert final[1]["tool_calls"] == [
        {
            "name": "calculator",
            "args": {"expression": "2+3*4"},
            "id": final[2]["tool_call_id"],
            "type": "tool_call",
        }
    ]
    assert json.loads(final[2]["content"]) == {"result": 14}
    assert "14" in final[3]["content"]


async def test_updates_mode_names_create_agents_nodes(client: LangGraphClient) -> None:
    thread = await client.threads.create()
    parts = await streamed(client, thread["thread_id"], input=said(CALC), stream_mode="updates")

    updates = [p.data for p in parts if p.event == "updates"]
    assert [list(u) for u in updates] == [["model"], ["tools"], ["model"]]
    assert updates[1]["tools"]["messages"][0]["name"] == "calculator"


async def test_messages_tuple_mode_streams_chunks_that_add_up_to_the_answer(
    client: LangGraphClient,
) -> None:
    thread = await client.threads.create()
    parts = await streamed(
        client, thread["thread_id"], input=said("hello there"), stream_mode="messages-tuple"
    )

    pairs = [p.data for p in parts if p.event == "messages"]
    assert pairs
    assert all(meta["langgraph_node"] == "model" for _, meta in pairs)
    text = "".join(chunk["content"] for chunk, _ in pairs)
    reasoning = "".join(c["additional_kwargs"].get("reasoning_content", "") for c, _ in pairs)
    assert reasoning
    state = await client.threads.get_state(thread["thread_id"])
    answer = state["values"]["messages"][-1]
    assert (answer["type"], answer["content"]) == ("ai", text)
    assert {chunk["id"] for chunk, _ in pairs} == {answer["id"]}


async def test_legacy_messages_mode_sends_metadata_partials_and_the_whole_message(
    client: LangGraphClient,
) -> None:
    thread = await client.threads.create()
    parts = await streamed(client, thread["thread_id"], input=said(CALC), stream_mode="messages")

    events = [p.event for p in parts[1:-1]]
    assert set(events) == {"messages/metadata", "messages/partial", "messages/complete"}
    complete = [p.data[0] for p in parts if p.event == "messages/complete"]
    assert [m["type"] for m in complete] == ["ai", "tool", "ai"]
    partials = [p.data[0] for p in parts if p.event == "messages/partial"]
    assert partials[-1]["content"] == complete[-1]["content"]


async def test_custom_mode_carries_runyards_task_list_and_sub_agents(
    client: LangGraphClient,
) -> None:
    thread = await client.threads.create()
    parts = await streamed(
        client, thread["thread_id"], input=said(PLAN_AND_DELEGATE), stream_mode="custom"
    )

    custom = [p.data["type"] for p in parts if p.event == "custom"]
    assert custom.count("tasks-update") == 2
    assert custom.index("agent-spawned") < custom.index("agent-completed")


async def test_events_mode_sends_astream_events(client: LangGraphClient) -> None:
    thread = await client.threads.create()
    parts = await streamed(client, thread["thread_id"], input=said(CALC), stream_mode="events")

    names = [p.data["event"] for p in parts if p.event == "events"]
    assert names[0] == "on_chain_start"
    assert names[-1] == "on_chain_end"
    assert names.index("on_tool_start") < names.index("on_tool_end")
    assert "on_chat_model_stream" in names


async def test_an_approval_interrupts_and_command_resume_approves_it(
    client: LangGraphClient, base: str
) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    parts = await streamed(client, thread_id, input=said(NOTE), stream_mode=["values", "updates"])

    interrupts = [p.data["__interrupt__"] for p in parts if "__interrupt__" in (p.data or {})]
    assert len(interrupts) == 2  # on values and on updates
    (waiting,) = interrupts[0]
    request = waiting["value"]["action_requests"][0]
    assert (request["name"], request["args"]) == ("save_note", {"text": "milk"})
    decisions = waiting["value"]["review_configs"][0]["allowed_decisions"]
    assert decisions == ["approve", "edit", "reject"]
    assert waiting["id"] == waiting["value"]["runyard"]["requestId"]
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["tools"]
    assert [i["id"] for i in state["interrupts"]] == [waiting["id"]]
    assert (await client.threads.get(thread_id))["status"] == "interrupted"

    resumed = await streamed(
        client,
        thread_id,
        command={"resume": {"decisions": [{"type": "approve"}]}},
        stream_mode="updates",
    )

    assert resumed[0].data["run_id"] == parts[0].data["run_id"]
    updates = [p.data for p in resumed if p.event == "updates"]
    assert [list(u) for u in updates] == [["tools"], ["model"]]
    assert updates[0]["tools"]["messages"][0]["status"] == "success"
    logged = thread_events(base, thread_id, parts[0].data["run_id"])
    assert logged[-1]["payload"]["status"] == "completed"
    assert (await client.threads.get_state(thread_id))["next"] == []


async def test_a_rejection_with_a_message_denies_the_call(client: LangGraphClient) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    waited = await client.runs.wait(thread_id, "assistant", input=said(NOTE))
    (waiting,) = waited["__interrupt__"]

    answered = await client.runs.wait(
        thread_id,
        "assistant",
        command={"resume": {waiting["id"]: {"type": "reject", "message": "not today"}}},
    )

    assert "__interrupt__" not in answered
    tool = [m for m in answered["messages"] if m["type"] == "tool"][-1]
    assert tool["status"] == "error"
    assert "not today" in tool["content"]


async def test_an_edit_runs_the_call_on_the_edited_arguments(client: LangGraphClient) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "assistant", input=said(NOTE))
    edited = {"name": "save_note", "args": {"text": "oat milk"}}

    answered = await client.runs.wait(
        thread_id,
        "assistant",
        command={"resume": {"decisions": [{"type": "edit", "edited_action": edited}]}},
    )

    tool = [m for m in answered["messages"] if m["type"] == "tool"][-1]
    assert (tool["status"], json.loads(tool["content"])["text"]) == ("success", "oat milk")


async def test_a_resume_that_fits_no_answer_is_a_422_naming_it(client: LangGraphClient) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "assistant", input=said(NOTE))
    other_tool = {"name": "calculator", "args": {"expression": "1"}}
    edit = {"decisions": [{"type": "edit", "edited_action": other_tool}]}

    # runs.create: the SDK's runs.wait raises httpx's own error, for LangGraph Server too
    with pytest.raises(UnprocessableEntityError) as edited:
        await client.runs.create(thread_id, "assistant", command={"resume": edit})
    with pytest.raises(UnprocessableEntityError) as nonsense:
        await client.runs.create(thread_id, "assistant", command={"resume": "maybe"})

    assert edited.value.param == "command.resume.decisions.0.edited_action.name"
    assert "not which tool runs" in edited.value.message
    assert nonsense.value.param == "command.resume"
    assert (await client.threads.get_state(thread_id))["next"] == ["tools"]


async def test_runs_cancel_ends_a_running_run(client: LangGraphClient, base: str) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    run = await client.runs.create(thread_id, "assistant", input=said(SLOW))
    async for part in client.runs.join_stream(
        thread_id, run["run_id"], stream_mode="messages-tuple"
    ):
        if part.event == "messages":
            break  # it is running

    cancelled = await client.runs.cancel(thread_id, run["run_id"])

    assert cancelled["status"] == "interrupted"
    assert (await client.runs.get(thread_id, run["run_id"]))["status"] == "interrupted"
    finish = thread_events(base, thread_id, run["run_id"])[-1]
    assert finish["payload"]["status"] == "cancelled"


async def test_join_stream_after_last_event_id_sends_the_rest_again(
    client: LangGraphClient,
) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    first = await streamed(client, thread_id, input=said(CALC), stream_mode="messages-tuple")
    run_id = first[0].data["run_id"]
    ids = [p.id for p in first if p.event == "messages"]
    middle = ids[len(ids) // 2]

    again = [
        p
        async for p in client.runs.join_stream(
            thread_id, run_id, stream_mode="messages-tuple", last_event_id=middle
        )
    ]

    rest = [p.data for p in first if p.event == "messages" and int(p.id) > int(middle)]
    assert [p.data for p in again if p.event == "messages"] == rest
    assert again[-1].event == "end"
