"""Reading an open pydantic-ai stream's chunks without a lock per chunk.

pydantic-ai's ``FunctionModel`` and its Google, Groq, Mistral, Hugging Face and xAI models read
the provider's chunks through ``PeekableAsyncStream``, which takes an anyio lock and a cancel
scope for every chunk, so that pydantic-ai's own agent may prefetch the next chunk in a
background task and still close the stream safely. Each pull also passes through the event loop,
so the reader of a runyard stream wakes once per chunk. runyard reads a model's stream from one
task and never prefetches: once the stream is open (its first chunk peeked), the chunks are read
straight from the source. The peekable stays the source's owner: closing the response closes the
source as before, and cancelling the reading task cancels the pull it is in.

This leans on two private attributes of ``PeekableAsyncStream`` (``_source_iter``,
``_exhausted``); when a pydantic-ai release changes them, ``unlock`` leaves the stream as it is
(correct, only slower), and ``tests/models/test_unlocked_stream.py`` says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai._utils import PeekableAsyncStream, Unset
from pydantic_ai.models import StreamedResponse

__all__ = ["unlock"]


def unlock(response: StreamedResponse) -> int:
    """Make ``response`` read its provider's chunks without the per-chunk lock; how many sources
    it unlocked (0: nothing to do, or a pydantic-ai this module does not know)."""
    unlocked = 0
    for name, value in list(getattr(response, "__dict__", {}).items()):
        if isinstance(value, PeekableAsyncStream) and _is_open(value):
            setattr(response, name, _Unlocked(value))
            unlocked += 1
    return unlocked


def _is_open(peekable: PeekableAsyncStream[Any, Any]) -> bool:
    """Peeked, not exhausted, and shaped as this module expects."""
    source = getattr(peekable, "_source_iter", None)
    return source is not None and getattr(peekable, "_exhausted", None) is False


class _Unlocked:
    """The peekable's buffered chunk, then the rest straight from its source iterator."""

    def __init__(self, peekable: PeekableAsyncStream[Any, Any]) -> None:
        self._peekable = peekable

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[Any]:
        peekable = self._peekable
        first = await peekable.peek()  # already buffered: no pull, no lock
        if isinstance(first, Unset):
            return
        yield await anext(peekable)
        async for chunk in peekable._source_iter:  # type: ignore[union-attr]
            yield chunk
        peekable._exhausted = True
