"""What text is stored: the same on SQLite and PostgreSQL, whatever a model or tool produced.

JSON values keep NUL (as the escape ``\\u0000``) and hold a lone surrogate as U+FFFD; text
columns hold both as U+FFFD (docs/storage.md, "What text is stored"). Nothing fails a write.
The event log hands back the very text the wire codec wrote: a replayed event is byte for
byte the live one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from runyard.messages import AgentMessage, ToolCallPart
from runyard.protocol import event_to_dict, event_to_json, parse_event
from runyard.storage import EmbeddingEntry, Observation, Store, StoredEvent

ALICE: dict[str, Any] = {"tenant_id": "acme", "resource_id": "alice"}
ODD = 'nul\x00 lone\ud800 high\udbff pair😀 ü "q" \\ \n\t end'
IN_JSON = ODD.replace("\ud800", "\ufffd").replace("\udbff", "\ufffd")
IN_TEXT = IN_JSON.replace("\x00", "\ufffd")
LONG_ID = "x" * 1000

sql_backends = pytest.mark.backends("sqlite", "sqlite-exact", "postgresql", "pgvector")


def _event(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "runId": "run_1", "agentId": "agent-001", "payload": payload}


EVENTS = [
    _event("run-start", {"messageId": "msg_1"}),
    _event("text-delta", {"text": ODD}),
    _event("reasoning-delta", {"text": "ü 😀 \u2028 \x7f"}),
    _event("tool-call", {"toolCallId": "tc_1", "toolName": "calc", "args": {ODD: [ODD]}}),
    _event(
        "tool-result",
        {
            "toolCallId": "tc_1",
            "result": {"floats": [0.1, 1e-7, 1e16, 2.5e300, -0.0], "big": 2**62, "none": None},
        },
    ),
    _event("tool-error", {"toolCallId": "tc_1", "error": ODD}),
    _event("status", {"message": ""}),
    _event("run-finish", {"status": "error", "reason": ODD}),
]


async def test_the_event_log_keeps_the_text_the_wire_codec_wrote(store: Store) -> None:
    events = [parse_event(e) for e in EVENTS]
    rows = [
        StoredEvent("t1", i, e.run_id, e.type, event_to_dict(e), 1000)
        for i, e in enumerate(events, 1)
    ]
    await store.append_events("t1", rows)

    replayed = [text for _, text in await store.read_event_json("t1")]
    decoded = [parse_event(e.data) for e in await store.read_events("t1")]

    assert replayed == [event_to_json(e) for e in events]
    assert [event_to_json(e) for e in decoded] == replayed
    assert json.loads(replayed[1])["payload"]["text"] == IN_JSON


@sql_backends
async def test_text_columns_hold_nul_and_lone_surrogates_as_replacement_characters(
    store: Store,
) -> None:
    await store.save_thread("t1", title=ODD, metadata={"note": ODD}, **ALICE)
    await store.save_working_memory(ODD, scope="thread", thread_id="t1", **ALICE)
    await store.append_observations(
        "t1", [Observation("o1", "t1", ODD, 1, metadata={"m": ODD})], **ALICE
    )
    await store.save_embeddings("t1", [EmbeddingEntry("m1", [1.0, 0.0], ODD, ODD)], **ALICE)

    thread = await store.get_thread("t1", **ALICE)
    memory = await store.get_working_memory(scope="thread", thread_id="t1", **ALICE)
    (observation,) = await store.list_observations("t1", **ALICE)
    hits = await store.query_embeddings([1.0, 0.0], thread_id="t1", **ALICE)

    assert thread is not None
    assert memory is not None
    assert (thread.title, thread.metadata) == (IN_TEXT, {"note": IN_JSON})
    assert memory.content == IN_TEXT
    assert (observation.text, observation.metadata) == (IN_TEXT, {"m": IN_JSON})
    assert [h.message_id for h in hits] == ["m1"]


@sql_backends
async def test_json_values_keep_nul_and_hold_lone_surrogates_as_replacement_characters(
    store: Store,
) -> None:
    call = ToolCallPart(tool_call_id="tc_1", tool_name="calc", args={"q": ODD})
    said = AgentMessage.user(ODD)
    answered = AgentMessage(role="assistant", parts=[call])
    await store.save_messages("t1", [said, answered], **ALICE)
    await store.save_plan("t1", {"goal": ODD}, **ALICE)
    await store.save_checkpoint("run_1", {"state": [ODD]})

    (text, tool) = await store.get_messages("t1", **ALICE)
    plan = await store.get_plan("t1", **ALICE)

    assert isinstance(text, AgentMessage)
    assert isinstance(tool, AgentMessage)
    assert text.text == IN_JSON
    assert tool.parts[0] == ToolCallPart(tool_call_id="tc_1", tool_name="calc", args={"q": IN_JSON})
    assert plan is not None
    assert plan.data == {"goal": IN_JSON}
    assert await store.load_checkpoint("run_1") == {"state": [IN_JSON]}


@sql_backends
async def test_runs_and_confirmations_take_whatever_a_model_produced(store: Store) -> None:
    await store.open_run("run_1", thread_id="t1", tenant_id="acme", owner="host/1")
    await store.create_confirmation(
        "cr_1", thread_id="t1", run_id="run_1", tool_call_id=ODD, payload={"args": ODD}
    )
    assert await store.answer_confirmation("cr_1", {"reason": ODD})
    closed = await store.close_run("run_1", "failed", epoch=1, reason=ODD)

    confirmation = await store.get_confirmation("cr_1")
    assert confirmation is not None
    assert (confirmation.tool_call_id, confirmation.payload, confirmation.answer) == (
        IN_TEXT,
        {"args": IN_JSON},
        {"reason": IN_JSON},
    )
    assert closed.reason == IN_TEXT
    assert await store.get_run("run_1") == closed


@sql_backends
async def test_an_odd_id_finds_the_row_it_wrote(store: Store) -> None:
    odd_id = "t\x00\ud800"
    await store.save_messages(odd_id, [AgentMessage.user("hi")], **ALICE)
    await store.save_embeddings(odd_id, [EmbeddingEntry(odd_id, [1.0, 0.0], "hi", "e")], **ALICE)
    hits = await store.query_embeddings([1.0, 0.0], thread_id=odd_id, **ALICE)
    everywhere = await store.query_embeddings([1.0, 0.0], scope="resource", **ALICE)
    thread = await store.get_thread(odd_id, **ALICE)
    assert thread is not None
    assert thread.id == "t\ufffd\ufffd"
    (message,) = await store.get_messages(odd_id, **ALICE)
    assert message.model_dump()["parts"] == [{"type": "text", "text": "hi"}]
    assert [(h.thread_id, h.message_id) for h in hits] == [(thread.id, thread.id)]
    assert [(h.thread_id, h.message_id) for h in everywhere] == [(thread.id, thread.id)]


@sql_backends
async def test_ids_have_no_length_limit_on_either_backend(store: Store) -> None:
    await store.save_messages(LONG_ID, [AgentMessage.user("hi", id=LONG_ID)], **ALICE)
    await store.open_run("run_1", thread_id=LONG_ID, tenant_id="acme", owner="host/1")
    await store.create_confirmation(
        LONG_ID, thread_id=LONG_ID, run_id=LONG_ID, tool_call_id=LONG_ID, payload={}
    )
    await store.append_events(LONG_ID, [StoredEvent(LONG_ID, 1, LONG_ID, "status", {}, 1)])

    assert [m.id for m in await store.get_messages(LONG_ID, **ALICE)] == [LONG_ID]
    assert (await store.get_active_run(LONG_ID)) is not None
    assert [c.tool_call_id for c in await store.list_pending_confirmations(LONG_ID)] == [LONG_ID]
    assert await store.last_event_id(LONG_ID) == 1
