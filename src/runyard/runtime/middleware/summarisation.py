"""``Summarisation``: an over-long context is sent to the model as a summary plus its recent end.

When the messages of a model call exceed ``max_messages`` or an estimated ``max_tokens``, every
message but the last ``keep_last`` is replaced, in what this one call sends, by one system
message holding a summary a model wrote (``model``, by default the agent's own). The run's
message list and memory keep every message; only the model's view is shortened. The cut never
separates tool results from the call that asked for them. A summary is kept per exact run of
older messages, so the next call of the same conversation does not pay for it again. The
summary call's tokens are not counted in the run's usage.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

from pydantic_ai.models import Model

from runyard.errors import ConfigurationError
from runyard.messages import AgentMessage, TextPart, ToolCallPart, ToolResultPart
from runyard.models import estimate_message_tokens, request_model
from runyard.runtime.middleware.base import Middleware, ModelRequest

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "SUMMARY_PREFIX", "Summarisation"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "Summarise the conversation below for the assistant who continues it. Keep every fact, "
    "decision, open question and tool result that may matter later; drop pleasantries. "
    "Answer with the summary only."
)
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"
_SUMMARIES_KEPT = 256


class Summarisation(Middleware):
    """Replaces older messages by a summary when a model call's context is too long."""

    def __init__(
        self,
        *,
        max_messages: int | None = None,
        max_tokens: int | None = None,
        keep_last: int = 6,
        model: Model | None = None,
        instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS,
    ) -> None:
        if max_messages is None and max_tokens is None:
            raise ConfigurationError("summarisation needs max_messages, max_tokens or both")
        if keep_last < 1 or (max_messages is not None and max_messages <= keep_last):
            raise ConfigurationError("summarisation: keep_last must be ≥ 1 and below max_messages")
        self.max_messages = max_messages
        self.max_tokens = max_tokens
        self.keep_last = keep_last
        self.model = model
        self.instructions = instructions
        self._summaries: OrderedDict[tuple[str, ...], str] = OrderedDict()

    async def before_model(self, request: ModelRequest) -> ModelRequest:
        messages = list(request.messages)
        if not self._too_long(messages):
            return request
        cut = len(messages) - self.keep_last
        while cut > 0 and messages[cut].role == "tool":
            cut -= 1  # the results stay with the assistant message that called for them
        if cut <= 0:
            return request
        summary = await self._summary(messages[:cut], self.model or request.model)
        head = AgentMessage(role="system", parts=[TextPart(text=SUMMARY_PREFIX + summary)])
        return replace(request, messages=[head, *messages[cut:]])

    def _too_long(self, messages: Sequence[AgentMessage]) -> bool:
        if self.max_messages is not None and len(messages) > self.max_messages:
            return True
        return self.max_tokens is not None and estimate_message_tokens(messages) > self.max_tokens

    async def _summary(self, older: Sequence[AgentMessage], model: Model) -> str:
        key = tuple(message.id for message in older)
        known = self._summaries.get(key)
        if known is not None:
            self._summaries.move_to_end(key)
            return known
        transcript = AgentMessage(role="user", parts=[TextPart(text=_transcript(older))])
        turn = await request_model(model, [transcript], instructions=self.instructions, tools=[])
        summary = turn.message.text.strip()
        self._summaries[key] = summary
        while len(self._summaries) > _SUMMARIES_KEPT:
            self._summaries.popitem(last=False)
        return summary


def _transcript(messages: Sequence[AgentMessage]) -> str:
    """The messages as ``role: text`` lines, tool calls and results as JSON."""
    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                lines.append(f"{message.role}: {part.text}")
            elif isinstance(part, ToolCallPart):
                lines.append(f"{message.role} calls {part.tool_name}: {json.dumps(part.args)}")
            elif isinstance(part, ToolResultPart):
                result = json.dumps(part.result, default=str)
                lines.append(f"tool {part.tool_name} returned: {result}")
    return "\n".join(lines)
