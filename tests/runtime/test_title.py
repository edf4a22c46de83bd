from __future__ import annotations

import pytest

from runyard.messages import AgentMessage, FilePart, ImagePart, TextPart
from runyard.runtime import MiddlewareStack, PiiRedaction, TitleWriter, clean_title
from runyard.testing import scripted_model, text


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ('"Weather to Slack workflow"', "Weather to Slack workflow"),
        ("<think>hmm</think>## **Budget review**", "Budget review"),
        ("**Plan:** *quarterly* budget", "Plan: quarterly budget"),
        ("You said: What is 6*7 or 2 * 3?", "You said: What is 6*7 or 2 * 3?"),
        ("Title\n```\ncode\n```", "Title"),
        ("   ", None),
        ("word " * 30, ("word " * 16).strip() + "…"),
    ],
)
def test_model_output_is_tidied_into_a_title(raw: str, title: str | None) -> None:
    assert clean_title(raw) == title


async def test_trivial_openers_get_no_title_and_no_model_call() -> None:
    model = scripted_model([])
    assert await TitleWriter(model).write("hi there") is None
    assert model.requests == []


async def test_a_title_comes_from_the_model() -> None:
    model = scripted_model([text("Lisbon trip in May")])
    assert (
        await TitleWriter(model).write("Please help me plan a trip to Lisbon in May")
        == "Lisbon trip in May"
    )


async def test_the_title_model_reads_and_writes_through_the_agents_middleware() -> None:
    # The scripted title echoes an address the model should never have seen: the reply is
    # redacted on its way back, as an answer is.
    model = scripted_model([text("Refund for john.doe@example.com")])
    writer = TitleWriter(model, MiddlewareStack([PiiRedaction()]))

    title = await writer.write("Please refund the order john.doe@example.com placed")

    assert "john.doe" not in repr(model.requests)
    assert "Please refund the order [EMAIL] placed" in repr(model.requests)
    assert title == "Refund for [EMAIL]"


async def test_an_opener_of_attachments_alone_is_named_after_their_kinds_without_a_model() -> None:
    model = scripted_model([])
    picture = ImagePart(url="https://example.com/cat.png", filename="john.doe@example.com.png")
    report = FilePart(file_id="file_1", filename="report.pdf")
    writer = TitleWriter(model)

    assert await writer.name(AgentMessage(role="user", parts=[picture])) == "Image"
    assert await writer.name(AgentMessage(role="user", parts=[report, picture])) == (
        "File and 1 more"
    )
    assert await writer.name(AgentMessage(role="user", parts=[])) is None
    assert model.requests == []


async def test_an_opener_with_text_is_named_by_the_model_from_its_text() -> None:
    model = scripted_model([text("Cat picture questions")])
    picture = ImagePart(url="https://example.com/cat.png")
    opener = AgentMessage(
        role="user", parts=[TextPart(text="What breed is the cat here?"), picture]
    )

    assert await TitleWriter(model).name(opener) == "Cat picture questions"
