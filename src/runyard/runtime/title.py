"""Thread titles: a short name for a conversation, asked of a model once, after the first turn;
a conversation opened by attachments alone is named after their kinds, without a model."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from pydantic_ai.models import Model

from runyard.messages import AgentMessage
from runyard.runtime.agent_model import AgentModel
from runyard.runtime.memory import MemoryProtocol, MemoryScope
from runyard.runtime.middleware import NO_MIDDLEWARE, MiddlewareStack

__all__ = ["TITLE_INSTRUCTIONS", "TitleWriter", "attachments_title", "clean_title", "title_thread"]

log = logging.getLogger(__name__)

TITLE_INSTRUCTIONS = (
    "Write a short title for a conversation that starts with the user's message below. "
    "Name what the user asked for, not what an assistant might reply. "
    "Use 1 to 5 words, at most 80 characters, sentence case, "
    "no quotes, no colons, no markdown. Reply with the title only."
)
_MAX = 80
_KINDS = {"image": "Image", "audio": "Audio", "video": "Video", "file": "File"}
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
# Markdown's emphasis markers: a run of ``*`` that opens (before a non-space, not after a word)
# or closes (after a non-space, not before a word). ``6*7`` and ``2 * 3`` are not emphasis.
_EMPHASIS = re.compile(r"(?<![\w*])\*+(?=\S)|(?<=\S)\*+(?![\w*])")


def _trivial(text: str) -> bool:
    # Greetings and one-word openers make poor titles; a later turn gets another chance.
    return len(text) <= 15 or len(text.split()) <= 3


def clean_title(raw: str) -> str | None:
    """Tidy what a model wrote into a title, or ``None`` if nothing usable is left."""
    text = _THINK.sub("", raw)
    text = text.split("```", 1)[0].strip()
    text = _EMPHASIS.sub("", re.sub(r"^#+\s*", "", text))
    text = " ".join(text.replace("`", "").split())
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1].strip()
    if len(text) > _MAX:
        cut = text[:_MAX]
        space = cut.rfind(" ")
        text = (cut[:space] if space > 20 else cut).rstrip() + "…"
    return text or None


def attachments_title(opener: AgentMessage) -> str | None:
    """A title for a conversation opened by ``opener``'s attachments: the first one's kind, and
    how many more (``Image``, ``File and 2 more``); ``None`` without any.

    Kinds, not file names: a name would reach the stored title without passing the agent's
    middleware, as a model's title does (``PiiRedaction`` would never see it).
    """
    kinds = [_KINDS[part.type] for part in opener.parts if part.type in _KINDS]
    if not kinds:
        return None
    return kinds[0] if len(kinds) == 1 else f"{kinds[0]} and {len(kinds) - 1} more"


@dataclass(frozen=True, slots=True)
class TitleWriter:
    """An agent's way to name a thread: ``model`` asked through the agent's ``middleware``.

    The title call is one more model call of the agent, so it reads what every other call
    reads: with ``PiiRedaction`` the user's e-mail address reaches the title model as
    ``[EMAIL]``, and the title that comes back is redacted like an answer.
    """

    model: Model
    middleware: MiddlewareStack = NO_MIDDLEWARE

    async def name(self, opener: AgentMessage) -> str | None:
        """A title for a conversation opened by ``opener``: from its text (``write``), or, for a
        message of attachments alone, after them (``attachments_title``), no model asked."""
        if opener.text.strip():
            return await self.write(opener.text)
        return attachments_title(opener)

    async def write(self, user_text: str) -> str | None:
        """A title for a conversation opened by ``user_text``; ``None`` for trivial openers."""
        text = user_text.strip()
        if not text or _trivial(text):
            return None
        asked = AgentModel(self.model, self.middleware)
        turn = await asked.ask([AgentMessage.user(text)], TITLE_INSTRUCTIONS)
        return clean_title(turn.message.text)


async def title_thread(
    memory: MemoryProtocol, scope: MemoryScope, writer: TitleWriter, opener: AgentMessage
) -> str | None:
    """Give the thread a title from its first message, ``opener``, if it has none; failures are
    logged and never reach the run."""
    try:
        if await memory.get_title(scope):
            return None
        title = await writer.name(opener)
        if title:
            await memory.set_title(scope, title)
        return title
    except Exception:
        log.exception("title generation for thread %s failed", scope.thread_id)
        return None
