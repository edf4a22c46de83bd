"""The hash embedder: deterministic unit vectors, closer for texts that share words."""

from __future__ import annotations

import math

import pytest

from runyard.models import Embedder
from runyard.testing import HashEmbedder


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_vectors_are_unit_length_and_of_the_asked_size() -> None:
    embedder = HashEmbedder(dimensions=32)
    [vector] = await embedder.embed(["the cat sat on the mat"])
    assert len(vector) == 32
    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0)


async def test_the_same_text_always_gets_the_same_vector() -> None:
    first = await HashEmbedder().embed(["Hello World"])
    second = await HashEmbedder().embed(["hello world"])
    assert first == second


async def test_texts_sharing_words_score_higher() -> None:
    query, near, far = await HashEmbedder().embed(
        ["my favourite colour is blue", "favourite colour blue", "the train leaves at noon"]
    )
    assert _cosine(query, near) > _cosine(query, far)


async def test_text_without_words_is_the_zero_vector() -> None:
    [vector] = await HashEmbedder(dimensions=8).embed(["..."])
    assert vector == [0.0] * 8


def test_it_is_an_embedder() -> None:
    embedder = HashEmbedder()
    assert isinstance(embedder, Embedder)
    assert embedder.model_name == "hash:64"
    with pytest.raises(ValueError, match="dimensions"):
        HashEmbedder(dimensions=0)
