"""Binary content a run produces (a model's image, a tool's file) kept before anyone sees it.

A ``FileKeeper`` decides, part by part, how a produced image, sound, video or file is kept: a
large one goes to a file store and comes back as a reference (``file_id``), a small one stays
inline. The loop passes each model turn and each tool outcome through it before the message
joins the list and before its chunk is sent, so history, checkpoints, the journal and every
client see the same (durable) form. Reading a reference again for the next model call is the
``FileReader``'s business (``runyard.models.file_references``).
"""

from __future__ import annotations

from typing import Any, Protocol

from runyard.messages import (
    AgentMessage,
    AudioPart,
    FilePart,
    ImagePart,
    MediaPart,
    MessagePart,
    VideoPart,
    tool_block,
    tool_blocks,
)

__all__ = ["FileKeeper", "kept_message", "kept_output"]


class FileKeeper(Protocol):
    """Where a run keeps the binary content its model and tools produce."""

    async def keep(self, part: MediaPart) -> MediaPart:
        """``part`` as history and clients get it: stored and named by ``file_id`` when it is
        large, else unchanged. Raises when it cannot be stored (the run or call fails)."""
        ...


async def kept_message(message: AgentMessage, keeper: FileKeeper | None) -> AgentMessage:
    """``message`` with each inline media part passed through ``keeper`` (a copy when one
    changed; the message itself when none is inline or there is no keeper)."""
    if keeper is None or not any(_inline(part) for part in message.parts):
        return message
    parts = [await _kept_part(part, keeper) for part in message.parts]
    return message.model_copy(update={"parts": parts})


async def _kept_part(part: MessagePart, keeper: FileKeeper) -> MessagePart:
    if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart) and part.base64 is not None:
        return await keeper.keep(part)
    return part


async def kept_output(output: Any, keeper: FileKeeper | None) -> Any:
    """A tool's (JSON) output with each inline media block passed through ``keeper``, as the
    block's JSON; anything else unchanged."""
    if keeper is None or not any(_inline(block) for block in tool_blocks(output)):
        return output
    if not isinstance(output, list):
        return (await kept_output([output], keeper))[0]
    return [await _kept_item(item, keeper) for item in output]


async def _kept_item(item: Any, keeper: FileKeeper) -> Any:
    block = tool_block(item)
    if not _inline(block):
        return item
    assert isinstance(block, ImagePart | AudioPart | VideoPart | FilePart)
    return (await keeper.keep(block)).model_dump(mode="json")


def _inline(part: object) -> bool:
    return (
        isinstance(part, ImagePart | AudioPart | VideoPart | FilePart) and part.base64 is not None
    )
