"""Thread titles: a short name for a conversation, asked of a model once, after the first turn."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from pydantic_ai.models import Model

from runyard.messages import AgentMessage
from runyard.runtime.agent_model import AgentModel
from runyard.runtime.memory import MemoryProtocol, MemoryScope
from runyard.runtime.middleware import NO_MIDDLEWARE, MiddlewareStack

__all__ = ["TITLE_INSTRUCTIONS", "TitleWriter", "clean_title", "title_thread"]

log = logging.getLogger(__name__)

TITLE_INSTRUCTIONS = (
    "Write a short title for a conversation that starts with the user's message below. "
    "Name what the user asked for, not what an assistant might reply. "
    "Use 1 to 5 words, at most 80 characters, sentence case, "
    "no quotes, no colons, no markdown. Reply with the title only."
)
_MAX = 80
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def _trivial(text: str) -> bool:
    # Greetings and one-word openers make poor titles; a later turn gets another chance.
    return len(text) <= 15 or len(text.split()) <= 3


def clean_title(raw: str) -> str | None:
    """Tidy what a model wrote into a title, or ``None`` if nothing usable is left."""
    text = _THINK.sub("", raw)
    text = text.split("```", 1)[0].strip()
    text = re.sub(r"^#+\s*", "", text).replace("*", "")
    text = " ".join(text.replace("`", "").split())
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1].strip()
    if len(text) > _MAX:
        cut = text[:_MAX]
        space = cut.rfind(" ")
        text = (cut[:space] if space > 20 else cut).rstrip() + "…"
    return text or None


@dataclass(frozen=True, slots=True)
class TitleWriter:
    """An agent's way to name a thread: ``model`` asked through the agent's ``middleware``.

    The title call is one more model call of the agent, so it reads what every other call
    reads: with ``PiiRedaction`` the user's e-mail address reaches the title model as
    ``[EMAIL]``, and the title that comes back is redacted like an answer.
    """

    model: Model
    middleware: MiddlewareStack = NO_MIDDLEWARE

    async def write(self, user_text: str) -> str | None:
        """A title for a conversation opened by ``user_text``; ``None`` for trivial openers."""
        text = user_text.strip()
        if not text or _trivial(text):
            return None
        asked = AgentModel(self.model, self.middleware)
        turn = await asked.ask([AgentMessage.user(text)], TITLE_INSTRUCTIONS)
        return clean_title(turn.message.text)


async def title_thread(
    memory: MemoryProtocol, scope: MemoryScope, writer: TitleWriter, user_text: str
) -> str | None:
    """Give the thread a title if it has none; failures are logged and never reach the run."""
    try:
        if await memory.get_title(scope):
            return None
        title = await writer.write(user_text)
        if title:
            await memory.set_title(scope, title)
        return title
    except Exception:
        log.exception("title generation for thread %s failed", scope.thread_id)
        return None
