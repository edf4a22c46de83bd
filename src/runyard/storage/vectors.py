"""Vector helpers every backend shares: the float32 wire format and exact cosine top-k."""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Iterable, Sequence
from typing import TypeVar

__all__ = ["cosine_similarity", "pack_vector", "top_k_exact", "unpack_vector"]

K = TypeVar("K")


def pack_vector(vector: Sequence[float]) -> bytes:
    """Little-endian float32 bytes: the layout sqlite-vec reads and every backend stores."""
    return array("f", vector).tobytes()


def unpack_vector(blob: bytes) -> array[float]:
    """The inverse of ``pack_vector``."""
    values = array("f")
    values.frombytes(blob)
    return values


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of the angle between two equally long vectors; 0 when either is all zeros."""
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return 0.0 if norm == 0.0 else dot / norm


def top_k_exact(
    query: Sequence[float], candidates: Iterable[tuple[K, Sequence[float]]], k: int
) -> list[tuple[K, float]]:
    """The ``k`` candidates most similar to ``query``, best first (ties keep input order)."""
    scored = (
        (cosine_similarity(query, vector), -index, key)
        for index, (key, vector) in enumerate(candidates)
    )
    best = heapq.nlargest(k, scored, key=lambda item: (item[0], item[1]))
    return [(key, score) for score, _, key in best]
