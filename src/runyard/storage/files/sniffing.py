"""The media type of a file, from its bytes: magic numbers, else UTF-8 text (or JSON), else
``application/octet-stream``. A name or a header never counts: both are whatever the sender says.

``MediaSniffer`` is fed the file chunk by chunk (nothing is kept but the first bytes), so a
20 MiB upload is judged whole without being held: text is text only if every byte decodes.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["OCTET_STREAM", "MediaSniffer", "sniff_media_type"]

OCTET_STREAM = "application/octet-stream"
_HEAD_BYTES = 64
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
"""Characters no text file has (tab, newlines and form feed are text)."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"PK\x03\x04", "application/zip"),
    (b"PK\x05\x06", "application/zip"),
)


def _by_magic(head: bytes) -> str | None:
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] in (b"WEBP", b"WAVE"):
        return "image/webp" if head[8:12] == b"WEBP" else "audio/wav"
    if head[4:8] == b"ftyp":
        return "audio/mp4" if head[8:12] == b"M4A " else "video/mp4"
    if head.startswith(b"\x1a\x45\xdf\xa3"):  # EBML: WebM says so in its DocType
        return "video/webm" if b"webm" in head else None
    if len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:  # an MPEG audio frame
        return "audio/mpeg"
    return None


class MediaSniffer:
    """Feed it every chunk in order; ``media_type`` then says what the whole file is."""

    def __init__(self) -> None:
        self._head = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._text = True
        self._first = ""
        self._last = ""

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the file."""
        if len(self._head) < _HEAD_BYTES:
            self._head += chunk[: _HEAD_BYTES - len(self._head)]
        if self._text:
            self._read_text(chunk, final=False)

    def media_type(self) -> str:
        """What the bytes fed so far are, taken as the whole file."""
        head = bytes(self._head)
        known = _by_magic(head)
        if known is not None:
            return known
        if not head or not self._read_text(b"", final=True):
            return OCTET_STREAM
        if (self._first, self._last) in (("{", "}"), ("[", "]")):
            return "application/json"
        return "text/plain; charset=utf-8"

    def _read_text(self, chunk: bytes, *, final: bool) -> bool:
        try:
            text = self._decoder.decode(chunk, final=final)
        except UnicodeDecodeError:
            self._text = False
            return False
        if _CONTROL.search(text):
            self._text = False
        stripped = text.lstrip("\ufeff").strip()
        if stripped:
            self._first = self._first or stripped[0]
            self._last = stripped[-1]
        return self._text


def sniff_media_type(data: bytes) -> str:
    """The media type of a whole file held in ``data``."""
    sniffer = MediaSniffer()
    sniffer.feed(data)
    return sniffer.media_type()
