"""Large binary content a run produces goes through its ``FileKeeper`` before the message joins the
list or a chunk is sent: history, the stream and the next model call see the reference (read back
for the model through the run's ``FileReader``); without a keeper it stays inline."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from runyard import Agent, AgentMessage, ImagePart, TextPart, ToolResultPart, tool
from runyard.messages import MediaPart
from runyard.models.demo_script import demo_png
from runyard.runtime import ToolResultChunk

PNG = demo_png()
PNG64 = base64.b64encode(PNG).decode()


class Keeper:
    """Keeps every inline part under a new id, and reads it back (the run's file store)."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[str, bytes]] = {}

    async def keep(self, part: MediaPart) -> MediaPart:
        assert part.base64 is not None
        assert part.mime_type is not None
        file_id = f"file_{len(self.files)}"
        self.files[file_id] = (part.mime_type, base64.b64decode(part.base64))
        return type(part)(mime_type=part.mime_type, file_id=file_id, filename=part.filename)

    async def read_file(self, file_id: str) -> tuple[str, bytes]:
        return self.files[file_id]


def _drawing(seen: list[list[pai.ModelMessage]]) -> FunctionModel:
    """Draws on its first turn; answers in words once it sees its drawing in the history."""

    def answer(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        seen.append(messages)
        if len(messages) == 1:
            image = pai.BinaryContent(PNG, media_type="image/png", identifier="drawn.png")
            return pai.ModelResponse(parts=[pai.TextPart("Here."), pai.FilePart(image)])
        return pai.ModelResponse(parts=[pai.TextPart("Seen.")])

    return FunctionModel(answer)


async def test_a_drawn_image_is_kept_by_reference_and_read_back_for_the_next_call() -> None:
    keeper, seen = Keeper(), []
    agent = Agent("a", _drawing(seen))

    first = await agent.generate("Draw", files=keeper, produced_files=keeper)
    again_asked = AgentMessage(role="user", parts=[TextPart(text="Again")])
    again = await agent.generate([*first.messages, again_asked], files=keeper)

    (answer,) = first.messages
    assert answer.parts == [
        TextPart(text="Here."),
        ImagePart(mime_type="image/png", file_id="file_0", filename="drawn.png"),
    ]
    assert keeper.files == {"file_0": ("image/png", PNG)}
    assert again.error is None
    response = seen[-1][0]
    assert isinstance(response, pai.ModelResponse)
    assert [p.content for p in response.parts if isinstance(p, pai.FilePart)] == [
        pai.BinaryContent(PNG, media_type="image/png", identifier="drawn.png")
    ]


async def test_without_a_keeper_a_drawn_image_stays_inline() -> None:
    agent = Agent("a", _drawing([]))

    result = await agent.generate("Draw")

    (answer,) = result.messages
    assert answer.parts[1] == ImagePart(mime_type="image/png", base64=PNG64, filename="drawn.png")


async def test_a_tool_image_is_kept_before_its_result_is_streamed_and_the_model_reads_it() -> None:
    keeper, returned = Keeper(), []

    @tool
    async def draw() -> list[Any]:
        """Draw a picture."""
        return ["drawn", ImagePart(mime_type="image/png", base64=PNG64)]

    async def answer(
        messages: list[pai.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        assert isinstance(last, pai.ModelRequest)
        results = [p for p in last.parts if isinstance(p, pai.ToolReturnPart)]
        if not results:
            yield {0: DeltaToolCall(name="draw", json_args="{}", tool_call_id="call_1")}
            return
        returned.append(results[0].content)
        yield "Drawn."

    agent = Agent("a", FunctionModel(stream_function=answer), tools=[draw])
    stream = await agent.stream("Draw", files=keeper, produced_files=keeper)
    chunks = [chunk async for chunk in stream]

    kept = ["drawn", {"type": "image", "mime_type": "image/png", "file_id": "file_0"}]
    (result,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert result.output == kept
    (tool_message,) = [m for m in (await stream.result()).messages if m.role == "tool"]
    assert tool_message.parts[0] == ToolResultPart(
        tool_call_id="call_1", tool_name="draw", result=kept
    )
    assert returned == [["drawn", pai.BinaryContent(PNG, media_type="image/png")]]
    assert keeper.files == {"file_0": ("image/png", PNG)}
