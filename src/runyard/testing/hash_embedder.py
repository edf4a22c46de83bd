"""A deterministic, offline ``Embedder`` for recall tests: texts sharing words get similar vectors."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """A bag of hashed, lower-cased words, L2-normalised: cosine similarity grows with shared words.

    The same text always gets the same vector, on every machine and Python version (hashes are
    BLAKE2b, not ``hash()``). Texts without words get the zero vector.
    """

    def __init__(self, dimensions: int = 64) -> None:
        if dimensions < 1:
            raise ValueError("dimensions must be at least 1")
        self.dimensions = dimensions
        self.model_name = f"hash:{dimensions}"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text."""
        return [self.vector(text) for text in texts]

    def vector(self, text: str) -> list[float]:
        """The vector of one text."""
        counts = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "big")
            sign = 1.0 if value & 1 else -1.0
            counts[(value >> 1) % self.dimensions] += sign
        norm = math.sqrt(sum(c * c for c in counts))
        return [c / norm for c in counts] if norm else counts
