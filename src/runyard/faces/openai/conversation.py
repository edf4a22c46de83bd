"""``start_conversation``: a run on a new thread that starts with the conversation the request
carries — the ``openai`` client's way of giving an agent its history, where runyard would keep
it in the thread's memory.

The earlier messages are stored in the new thread before its run starts, so the agent's memory
reads them as the thread's history (``Memory.history``), exactly as if they had been said there.
Their images and files are checked first as the last message's are (nothing is stored when one
is refused), and the stored files they name are referenced by the thread once its run started.
Only a thread created here is written so: a thread the client names is never changed this way.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from runyard.faces.face_content import UserInput
from runyard.faces.face_runs import FaceRun, start_run
from runyard.faces.openai.chat_request import EarlierMessage
from runyard.service import Owner, ServiceParts

__all__ = ["new_thread_id", "start_conversation"]


def new_thread_id() -> str:
    """A thread for one request that names none."""
    return f"openai-{uuid.uuid4().hex}"


async def start_conversation(
    parts: ServiceParts,
    owner: Owner,
    message: UserInput,
    history: Sequence[EarlierMessage],
    agent: tuple[str, str | None],
) -> FaceRun:
    """Start a run of ``agent`` (id, version) for ``message`` on a new thread holding
    ``history``; when the run cannot start, the thread goes again."""
    thread_id = new_thread_id()
    if not history:
        return await start_run(parts, owner, thread_id, message, *agent, entry="openai")
    for earlier in history:
        await parts.runs.check_content(owner, earlier.blocks, earlier.field)
    key = owner.thread_key(thread_id)
    store, tenant, user = parts.store, owner.tenant_id, owner.user_id
    messages = [earlier.message() for earlier in history]
    await store.save_messages(key, messages, tenant_id=tenant, resource_id=user)
    try:
        run = await start_run(parts, owner, thread_id, message, *agent, entry="openai")
    except BaseException:
        # No reference yet: deleting the thread deletes none of the caller's files.
        await store.delete_thread(key, tenant_id=tenant, resource_id=user)
        raise
    for earlier in history:
        await parts.runs.reference_files(owner, thread_id, earlier.blocks)
    return run
