"""A browser's ``WebSocket`` on ``GET /v1/ws/{threadId}`` in Chromium: it drives a run over the
socket, loses the connection mid-run, reconnects with ``?lastEventId=`` and ends with every event
once, in order, with the ids SSE gives them; with ``RUNYARD_AUTH=keys`` it opens the socket with
a stream ticket (a browser cannot set a WebSocket's headers) and starts the run with the key."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page
from tcp_proxy import TcpProxy
from ui_server import served

from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store

pytestmark = pytest.mark.slow

SLOW = "/delay 150\nalpha beta gamma delta epsilon zeta eta theta"

# A page's own client: reconnects after any close until it has the run's end, from the last id
# it holds; ``ticket()`` gives the ``?ticket=`` of each connection (keys), else nothing.
CLIENT = """
([base, thread, message, key]) => {
  const state = {events: [], answers: [], opens: 0, closes: []};
  const ticket = async () => {
    if (!key) return "";
    const response = await fetch(`${base}/v1/threads/${thread}/stream-ticket`,
      {method: "POST", headers: {Authorization: `Bearer ${key}`}});
    return (await response.json()).ticket;
  };
  const start = async () => {
    if (!key) return;  // no key: the run is started over the socket
    await fetch(`${base}/v1/chat/${thread}`, {method: "POST",
      headers: {Authorization: `Bearer ${key}`, "Content-Type": "application/json"},
      body: JSON.stringify({message})});
  };
  const open = async () => {
    const query = new URLSearchParams();
    const last = state.events.at(-1);
    if (last) query.set("lastEventId", String(last.id));
    const granted = await ticket();
    if (granted) query.set("ticket", granted);
    const socket = new WebSocket(`${base.replace("http", "ws")}/v1/ws/${thread}?${query}`);
    socket.onopen = () => {
      state.opens += 1;
      if (state.opens === 1 && !key) socket.send(JSON.stringify({type: "send", message}));
      if (state.opens === 1 && key) start();
    };
    socket.onmessage = (frame) => {
      const data = JSON.parse(frame.data);
      ("id" in data ? state.events : state.answers).push(data);
    };
    socket.onclose = (closed) => {
      state.closes.push(closed.code);
      if (!state.events.some((event) => event.type === "run-finish")) setTimeout(open, 50);
    };
  };
  window.socketState = state;
  open();
}
"""

HAS = "(type) => window.socketState.events.some((event) => event.type === type)"


def through_a_cut(page: Page, base: str, thread: str, key: str | None = None) -> dict[str, Any]:
    """Run ``SLOW`` on ``thread`` from a page served through a proxy, cut the connection after
    the first text, and return what the page's socket client holds once the run has ended."""
    with TcpProxy(int(base.rsplit(":", 1)[1])) as proxy:
        near = f"http://127.0.0.1:{proxy.port}"
        page.goto(f"{near}/healthz")
        page.evaluate(CLIENT, [near, thread, SLOW, key])
        page.wait_for_function(HAS, arg="text-delta")
        before = proxy.accepted
        proxy.cut()
        page.wait_for_function(HAS, arg="run-finish")
        state: dict[str, Any] = page.evaluate("window.socketState")
        assert proxy.accepted > before  # the events came back through a new connection
    return state


def sse_ids(base: str, thread: str, headers: dict[str, str] | None = None) -> list[int]:
    ids = []
    with (
        httpx.Client(base_url=base, headers=headers, timeout=30) as client,
        client.stream("GET", f"/v1/events/{thread}") as stream,
    ):
        for line in stream.iter_lines():
            if line.startswith("id: "):
                ids.append(int(line[4:]))
            if '"type":"run-finish"' in line:
                return ids
    raise AssertionError("the stream ended early")


def test_a_browser_socket_drives_a_run_through_a_cut_and_misses_nothing(
    page: Page, base_url: str
) -> None:
    thread = f"t-{secrets.token_hex(4)}"
    state = through_a_cut(page, base_url, thread)

    ids = [event["id"] for event in state["events"]]
    assert ids == sse_ids(base_url, thread)  # every event once, in order, SSE's ids
    assert state["answers"][0]["type"] == "ack"
    assert state["opens"] >= 2
    assert 1006 in state["closes"]  # the cut: no closing handshake
    text = "".join(e["payload"]["text"] for e in state["events"] if e["type"] == "text-delta")
    assert text == 'You said: "alpha beta gamma delta epsilon zeta eta theta"'


async def _issue_key(url: str) -> str:
    store = await open_store(url)
    try:
        return (await issue_api_key(store, tenant_id="acme", user_id="alice")).token
    finally:
        await store.close()


@pytest.fixture(scope="module")
def keys_server(
    tmp_path_factory: pytest.TempPathFactory, chromium: Path
) -> Iterator[tuple[str, str]]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('ws-keys')) / 'runyard.db'}"
    # Playwright's sync API may keep an event loop running in this thread: issue it in another.
    with ThreadPoolExecutor(1) as pool:
        key = pool.submit(asyncio.run, _issue_key(url)).result()
    with served(url, auth="keys") as base:
        yield base, key


def test_with_keys_a_browser_socket_opens_with_tickets_through_a_cut(
    page: Page, keys_server: tuple[str, str]
) -> None:
    base, key = keys_server
    urls: list[str] = []
    page.on("websocket", lambda socket: urls.append(socket.url))
    state = through_a_cut(page, base, "t-ws-keys", key)

    ids = [event["id"] for event in state["events"]]
    assert ids == sse_ids(base, "t-ws-keys", {"Authorization": f"Bearer {key}"})
    assert len(urls) >= 2
    assert all("ticket=ryt_" in url for url in urls)
    assert not [url for url in urls if key in url]
