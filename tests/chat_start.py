"""Starting a run over HTTP as a client that keeps trying does: the test servers' harnesses
(``tests/system``, ``tests/http``) share it."""

from __future__ import annotations

import asyncio

import httpx

__all__ = ["start_run"]


async def start_run(
    client: httpx.AsyncClient, url: str, message: str, within: float, agent_id: str | None = None
) -> str:
    """POST ``message`` to ``url`` (a thread's ``/v1/chat/{thread}``), for ``agent_id`` when
    given; the run's id. A 409 (the thread's previous run still closing) is tried again for up
    to ``within`` seconds."""
    body = {"message": message} if agent_id is None else {"message": message, "agentId": agent_id}
    async with asyncio.timeout(within):
        while True:
            response = await client.post(url, json=body)
            if response.status_code != 409:
                response.raise_for_status()
                return str(response.json()["runId"])
            await asyncio.sleep(0.05)
