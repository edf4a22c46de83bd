"""A model that streams exactly the pieces it is given: one delta each, split where a test
needs it (an e-mail address across two deltas, say)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel


def pieces_model(*pieces: str) -> FunctionModel:
    """Streams exactly ``pieces`` (and answers them joined when not streamed)."""

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("".join(pieces))])

    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    return FunctionModel(respond, stream_function=stream)
