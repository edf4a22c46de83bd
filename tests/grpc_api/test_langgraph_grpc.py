"""A catalog's ``runtime: langchain`` agent (``langgraph_catalog``) over gRPC, through the generated client: its
streamed text as tokens, a tool call, an image the model made as a typed ``ContentEvent``, and
an approval answered with ``Confirm`` that lets the stream go on."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import struct_pb2
from grpc_harness import ALICE, grpc_served, kinds, streamed

from langgraph_catalog import write_langgraph_catalog
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.models.demo_script import demo_png
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    return write_langgraph_catalog(tmp_path / "agents")


def _request(thread_id: str, message: str = "", after_event_id: int = 0) -> pb.InvokeRequest:
    return pb.InvokeRequest(
        thread_id=thread_id, message=message, agent_id="assistant", after_event_id=after_event_id
    )


async def test_a_langchain_agents_tokens_tool_call_and_image_stream_over_grpc(
    url: str, catalog: str
) -> None:
    async with grpc_served(url, settings={"catalog_dir": catalog}) as served:
        tool = await streamed(served, _request("t1", '/tool calculator {"expression": "2+3*4"}'))
        image = await streamed(served, _request("t2", "Look\n/image"))

    (start,) = [e.tool_start for e in tool if e.WhichOneof("event") == "tool_start"]
    (end,) = [e.tool_end for e in tool if e.WhichOneof("event") == "tool_end"]
    assert (start.tool, dict(start.args)) == ("calculator", {"expression": "2+3*4"})
    assert end.tool_call_id == start.tool_call_id
    assert dict(end.result.struct_value) == {"result": 14}
    assert "14" in "".join(e.token.text for e in tool if e.WhichOneof("event") == "token")
    assert tool[-1].status.state == pb.COMPLETED
    tokens = "".join(e.token.text for e in image if e.WhichOneof("event") == "token")
    assert tokens == 'You said: "Look"'
    (content,) = [e.content for e in image if e.WhichOneof("event") == "content"]
    (block,) = content.blocks
    assert block.image == pb.ImageBlock(mime_type="image/png", data=demo_png(), name="demo.png")


async def test_a_langchain_agents_approval_is_confirmed_over_grpc(url: str, catalog: str) -> None:
    async with grpc_served(url, settings={"catalog_dir": catalog}) as served:
        first = await streamed(served, _request("t1", '/tool save_note {"text": "milk"}'))
        (asked,) = [e for e in first if e.WhichOneof("event") == "confirmation_request"]
        request = asked.confirmation_request.confirmation
        answer = struct_pb2.Struct()
        answer.update({"approved": True})
        await served.inference.Confirm(
            pb.ConfirmRequest(request_id=request.request_id, answer=answer), metadata=ALICE
        )
        rest = await streamed(served, _request("t1", after_event_id=first[-1].meta.event_id))

    assert request.tool == "save_note"
    assert first[-1].status.state == pb.SUSPENDED
    assert "tool_end" in kinds(rest)
    assert rest[-1].status.state == pb.COMPLETED
