"""An app served with ``RUNYARD_AUTH=keys`` and a key each for alice and bob of tenant acme, and
clients that send a key: what the ticket tests (stream and file) share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from http_harness import running_app

from runyard.service.api_keys import issue_api_key
from runyard.storage import Store

__all__ = ["Keys", "client", "keys_app"]


@dataclass
class Keys:
    app: FastAPI
    store: Store
    alice: str
    bob: str


@asynccontextmanager
async def keys_app(url: str) -> AsyncIterator[Keys]:
    async with running_app(url, settings={"auth": "keys"}, sse_follow=False) as app:
        store = app.state.runyard.parts.store
        alice = await issue_api_key(store, tenant_id="acme", user_id="alice")
        bob = await issue_api_key(store, tenant_id="acme", user_id="bob")
        yield Keys(app, store, alice.token, bob.token)


def client(app: FastAPI, key: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://runyard", headers=headers)
