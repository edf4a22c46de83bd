"""Content blocks through the SDK: a model sees images as pydantic-ai expects them, a stored file
is read through the run's ``FileReader`` just before each call (never stored inline), and a model's
own image is kept in its answer."""

from __future__ import annotations

import base64

from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard import Agent, AgentMessage, ImagePart, TextPart, tool
from runyard.models.demo_script import demo_png

PNG = demo_png()


class Files:
    def __init__(self) -> None:
        self.read: list[str] = []

    async def read_file(self, file_id: str) -> tuple[str, bytes]:
        self.read.append(file_id)
        if file_id != "file_1":
            raise LookupError(file_id)
        return "image/png", PNG


def _seeing(seen: list[list[object]]) -> FunctionModel:
    def answer(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        last = messages[-1]
        assert isinstance(last, pai.ModelRequest)
        prompt = last.parts[-1]
        assert isinstance(prompt, pai.UserPromptPart)
        seen.append(list(prompt.content))
        image = pai.BinaryContent(PNG, media_type="image/png", identifier="drawn.png")
        return pai.ModelResponse(parts=[pai.TextPart("Here."), pai.FilePart(image)])

    return FunctionModel(answer)


def _asking(block: ImagePart) -> AgentMessage:
    return AgentMessage(role="user", parts=[TextPart(text="Look"), block])


async def test_a_stored_file_is_read_for_the_model_and_its_answer_keeps_the_image() -> None:
    seen: list[list[object]] = []
    files = Files()
    agent = Agent("a", _seeing(seen))

    result = await agent.generate([_asking(ImagePart(file_id="file_1"))], files=files)

    assert result.error is None
    assert seen == [["Look", pai.BinaryContent(PNG, media_type="image/png")]]
    assert files.read == ["file_1"]
    (answer,) = result.messages
    assert answer.parts == [
        TextPart(text="Here."),
        ImagePart(
            mime_type="image/png", base64=base64.b64encode(PNG).decode(), filename="drawn.png"
        ),
    ]


async def test_a_url_image_reaches_the_model_as_an_image_url() -> None:
    seen: list[list[object]] = []
    agent = Agent("a", _seeing(seen))
    await agent.generate([_asking(ImagePart(url="https://example.com/cat.png"))])
    assert seen == [["Look", pai.ImageUrl("https://example.com/cat.png")]]


async def test_a_stored_file_without_a_reader_fails_the_run_saying_why() -> None:
    agent = Agent("a", _seeing([]))
    result = await agent.generate([_asking(ImagePart(file_id="file_1"))])
    assert result.finish_reason == "error"
    assert "file references need the file store" in str(result.error)


async def test_a_stored_file_a_tool_returned_is_read_for_the_model() -> None:
    returned: list[object] = []

    @tool
    async def fetch_chart() -> list[object]:
        """The chart, as a stored file."""
        return ["the chart", ImagePart(file_id="file_1")]

    def answer(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        last = messages[-1]
        assert isinstance(last, pai.ModelRequest)
        results = [p for p in last.parts if isinstance(p, pai.ToolReturnPart)]
        if not results:
            return pai.ModelResponse(parts=[pai.ToolCallPart("fetch_chart", {}, "call_1")])
        returned.append(results[0].content)
        return pai.ModelResponse(parts=[pai.TextPart("A chart.")])

    files = Files()
    agent = Agent("a", FunctionModel(answer), tools=[fetch_chart])
    result = await agent.generate("Show the chart", files=files)

    assert result.error is None
    assert returned == [["the chart", pai.BinaryContent(PNG, media_type="image/png")]]
