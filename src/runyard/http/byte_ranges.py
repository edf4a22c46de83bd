"""``Range: bytes=…`` of a download (RFC 9110 §14): one range, or the whole file.

A header that is not one well-formed byte range (another unit, several ranges, garbage) is
ignored, as the RFC allows, and the whole file is sent; a well-formed range that starts past the
end is unsatisfiable (416).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ByteRange", "Unsatisfiable", "requested_range"]

_ONE_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$")


class Unsatisfiable(ValueError):
    """The range asks for bytes the file does not have."""


@dataclass(frozen=True, slots=True)
class ByteRange:
    """Bytes ``start`` to ``end`` (exclusive) of a file of ``size`` bytes."""

    start: int
    end: int
    size: int

    @property
    def content_range(self) -> str:
        """The ``Content-Range`` header of a 206 answer."""
        return f"bytes {self.start}-{self.end - 1}/{self.size}"


def requested_range(header: str | None, size: int) -> ByteRange | None:
    """The one range ``header`` asks for, None for the whole file; ``Unsatisfiable`` when it
    asks for none of the file's bytes."""
    match = _ONE_RANGE.match(header or "")
    if match is None or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":  # bytes=-n: the last n bytes
        length = min(int(last), size)
        if length == 0:
            raise Unsatisfiable(header)
        return ByteRange(size - length, size, size)
    start = int(first)
    if last != "" and int(last) < start:
        return None  # not a valid range: ignored
    if start >= size:
        raise Unsatisfiable(header)
    end = size if last == "" else min(int(last) + 1, size)
    return ByteRange(start, end, size)
