from __future__ import annotations

import pytest

from runyard.runtime import clean_title, generate_title
from runyard.testing import scripted_model, text


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ('"Weather to Slack workflow"', "Weather to Slack workflow"),
        ("<think>hmm</think>## **Budget review**", "Budget review"),
        ("Title\n```\ncode\n```", "Title"),
        ("   ", None),
        ("word " * 30, ("word " * 16).strip() + "…"),
    ],
)
def test_model_output_is_tidied_into_a_title(raw: str, title: str | None) -> None:
    assert clean_title(raw) == title


async def test_trivial_openers_get_no_title_and_no_model_call() -> None:
    model = scripted_model([])
    assert await generate_title(model, "hi there") is None
    assert model.requests == []


async def test_a_title_comes_from_the_model() -> None:
    model = scripted_model([text("Lisbon trip in May")])
    assert (
        await generate_title(model, "Please help me plan a trip to Lisbon in May")
        == "Lisbon trip in May"
    )
