"""Which agent a run runs: chosen for a new run, or the one its thread's runs started with."""

from __future__ import annotations

from dataclasses import replace

from runyard.agent import Agent
from runyard.service.agent_choice import AgentChoice, AgentDirectory, AgentRequest
from runyard.service.errors import AgentVersionNotFound, AgentVersionUnavailable
from runyard.service.owner import Owner
from runyard.storage import Thread

__all__ = ["choose_agent", "thread_agent"]


async def choose_agent(
    directory: AgentDirectory, owner: Owner, thread: Thread | None, request: AgentRequest
) -> tuple[AgentChoice, Agent]:
    """The agent of a new run on ``thread`` (None: a new thread), and why."""
    stored = AgentChoice.stored(thread.metadata) if thread is not None else None
    # The run's entry goes with its choice, so the thread keeps both (and a resume reads both).
    choice = replace(
        directory.choose(owner.tenant_id, owner.user_id, request, stored), entry=request.entry
    )
    try:
        return choice, await directory.agent(owner.tenant_id, choice)
    except AgentVersionUnavailable as exc:
        if request.version is None:
            raise
        raise AgentVersionNotFound(exc.name, exc.version) from exc


async def thread_agent(directory: AgentDirectory, owner: Owner, thread: Thread) -> Agent:
    """The agent the thread's open run started with, at its version."""
    stored = AgentChoice.stored(thread.metadata)
    if stored is None:  # a thread from before choices were stored: the directory's default
        stored = directory.choose(owner.tenant_id, owner.user_id, AgentRequest(), None)
    return await directory.agent(owner.tenant_id, stored)
