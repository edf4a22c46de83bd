"""Content blocks over gRPC: an image in the request reaches the model, an image the model makes
comes back as a typed ``ContentEvent`` and in ``Invoke``'s messages; a bad block is
``INVALID_ARGUMENT`` naming its field."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_harness import ALICE, grpc_served, streamed

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.models.demo_script import demo_png
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def _image() -> pb.ContentBlock:
    return pb.ContentBlock(image=pb.ImageBlock(mime_type="image/png", data=demo_png()))


async def test_stream_sends_the_image_the_model_made_as_a_typed_content_event(url: str) -> None:
    request = pb.InvokeRequest(thread_id="t1", message="Look\n/image", content=[_image()])
    async with grpc_served(url) as served:
        events = await streamed(served, request)

    tokens = "".join(e.token.text for e in events if e.WhichOneof("event") == "token")
    assert tokens == 'You said: "Look" and attached: an image (image/png, 74 bytes)'
    (content,) = [e.content for e in events if e.WhichOneof("event") == "content"]
    assert content.message_id.startswith("msg_")
    (block,) = content.blocks
    assert block.image == pb.ImageBlock(mime_type="image/png", data=demo_png(), name="demo.png")


async def test_invoke_answers_with_the_messages_content_blocks(url: str) -> None:
    document = pb.ContentBlock(file=pb.FileBlock(mime_type="text/plain", data=b"hi", name="a.txt"))
    request = pb.InvokeRequest(thread_id="t1", message="/file notes.txt", content=[document])
    async with grpc_served(url) as served:
        reply = await served.inference.Invoke(request, metadata=ALICE)

    user, assistant = reply.messages
    assert list(user.content) == [document]
    (made,) = assistant.content
    assert made.file.name == "notes.txt"
    assert made.file.data.startswith(b"A file the runyard demo model wrote")
    assert not reply.HasField("output")


INVALID, NOT_FOUND = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize(
    ("block", "field", "code"),
    [
        (pb.ContentBlock(image=pb.ImageBlock(data=demo_png())), "content.0", INVALID),
        (
            pb.ContentBlock(image=pb.ImageBlock(mime_type="application/pdf", data=b"%PDF")),
            "content.0.mime_type",
            INVALID,
        ),
        (pb.ContentBlock(), "content.0", INVALID),
        # No upload of the caller's has that id (the file store is wired by default).
        (pb.ContentBlock(file=pb.FileBlock(file_id="file_1")), "content.0.file_id", NOT_FOUND),
        # Reasoning is the model's: a user message cannot carry it to one.
        (pb.ContentBlock(reasoning="I think"), "content.0.type", INVALID),
    ],
)
async def test_a_bad_block_is_refused_naming_its_field(
    url: str, block: pb.ContentBlock, field: str, code: grpc.StatusCode
) -> None:
    async with grpc_served(url) as served:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.inference.Invoke(
                pb.InvokeRequest(thread_id="t1", message="hi", content=[block]), metadata=ALICE
            )
    assert refused.value.code() == code
    trailers = dict(refused.value.trailing_metadata() or ())
    assert trailers["runyard-error-field"] == field
