"""``HoldBack``: a stream of text deltas redacted whole, although a match may be split across
deltas.

Redacting each delta alone misses a secret the model streams as ``sk-ab`` + ``c123…``. A
``HoldBack`` keeps the last ``hold_chars`` characters of the stream unsent, so a match that
starts in them can still grow, and never sends part of a match: text leaves once no match can
still reach back into it, and what is held is sent when the stream ends (``flush``). A match
longer than ``hold_chars`` is the one case whose beginning can leave before it is recognised.

What counts as a match is the caller's (``find``): the PII middleware's labels and the
``SecretRedactor``'s secrets share this one mechanism.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["HoldBack", "Replacement", "substitute"]

Replacement = tuple[int, int, str]
"""``(start, end, text)``: ``text`` takes the place of ``[start, end)``."""


def substitute(text: str, replacements: Iterable[Replacement], lo: int, hi: int) -> str:
    """``text[lo:hi]`` with every replacement that starts inside it applied (they are sorted
    and do not overlap)."""
    out: list[str] = []
    at = lo
    for start, end, replacement in replacements:
        if start < lo or start >= hi:
            continue
        out += [text[at:start], replacement]
        at = end
    out.append(text[at:hi])
    return "".join(out)


class HoldBack:
    """A ``DeltaFilter``: ``push`` each delta, send what it returns; ``flush`` at the end."""

    def __init__(
        self,
        find: Callable[[str], Sequence[Replacement]],
        hold_chars: int,
        pending: Callable[[str], int] | None = None,
        settled: Callable[[str], bool] | None = None,
    ) -> None:
        self._find = find
        self._hold = hold_chars
        self._pending = pending
        """Where in a text a match not complete yet may begin (its length: nowhere)."""
        self._settled = settled
        """True for a text that holds no match and none can grow out of: it is sent whole,
        without the scan (the common case: most deltas are plain words)."""
        self._text = ""
        self._sent = 0
        """How much of ``_text`` (raw) has been sent on, redacted."""

    def push(self, delta: str) -> str:
        self._text += delta
        if self._settled is not None and self._settled(self._text):
            return self._send_plain()
        cut = len(self._text) - self._hold
        if self._pending is not None:
            tail = max(cut, 0)
            cut = max(cut, tail + self._pending(self._text[tail:]))
        return self._send_until(cut)

    def flush(self) -> str:
        return self._send_until(len(self._text))

    def _send_plain(self) -> str:
        """Send everything unsent as it is; keep ``hold_chars`` of it as a later scan's context."""
        sent = self._text[self._sent :]
        drop = max(len(self._text) - self._hold, 0)
        self._text, self._sent = self._text[drop:], len(self._text) - drop
        return sent

    def _send_until(self, cut: int) -> str:
        # The scan starts a little before what was sent, for the context of \b and look-behinds.
        base = max(self._sent - self._hold, 0)
        found = [(s + base, e + base, r) for s, e, r in self._find(self._text[base:])]
        for start, end, _ in found:
            if start < cut < end:
                cut = start  # never send part of a match
        if cut <= self._sent:
            return ""
        sent = substitute(self._text, found, self._sent, cut)
        self._sent = cut
        # Keep only what a later scan needs: the held text and the context before it.
        drop = max(self._sent - self._hold, 0)
        if drop:
            self._text, self._sent = self._text[drop:], self._sent - drop
        return sent
