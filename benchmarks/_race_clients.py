"""The service race's load client: one run, or one listener, through each service's own API.

- runyard: the thread id is the client's, and so is the replica it talks to about it (given
  several servers' ports, threads go to them round robin: both requests of a thread's runs go
  to its replica, which is what a load balancer with thread affinity would do); a run is ``POST /v1/chat/{threadId}`` while an event
  stream (``GET /v1/events/{threadId}``, from the thread's last event id) is open, read until the
  run's ``run-finish`` (docs/http.md).
- LangGraph Server: ``POST /threads`` makes a thread; a run is ``POST
  /threads/{id}/runs/stream`` with ``stream_mode: ["messages-tuple"]`` (what a chat UI reads:
  the model's chunks and the tool's message), read until the response ends. A listener joins a
  run with ``GET /threads/{id}/runs/{runId}/stream``.

Every run's streamed text is checked against the fake model's answer.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from _fake_script import ANSWER
from _race_http import Frame, Response, frames, json_call, request

__all__ = ["PROMPT", "Client", "LangGraphClient", "Followed", "RunyardClient"]

PROMPT = "What is 1 + 2?"
_RUN_SECONDS = 300  # no run of the race may take longer: a hung one fails the benchmark


@dataclass
class Followed:
    """What one client saw of one run; times in seconds after ``started``."""

    started: float
    first_event: float = float("nan")
    first_output: float = float("nan")
    end: float = float("nan")
    text: list[str] = field(default_factory=list)
    last_id: str | None = None
    arrivals: list[float] = field(default_factory=list)  # perf_counter() of every frame

    def check(self, system: str) -> None:
        if "".join(self.text) != ANSWER:
            raise AssertionError(f"{system}: streamed {''.join(self.text)!r}, not {ANSWER!r}")


class Client(Protocol):
    name: str

    async def new_thread(self) -> str: ...

    async def run(self, thread: str, prompt: str = PROMPT) -> Followed: ...

    async def start_background(self, thread: str, prompt: str) -> str: ...

    async def listen(self, thread: str, run: str) -> Response: ...

    async def follow(self, listener: Response) -> Followed: ...


# A frame's part in a run: ("output" | "end" | "error" | "other", text it adds).
Classify = Callable[[Frame], tuple[str, str]]


async def _follow(response: Response, classify: Classify, started: float) -> Followed:
    seen = Followed(started)
    async for frame in frames(response):
        now = time.perf_counter()
        seen.arrivals.append(now)
        if seen.arrivals == [now]:
            seen.first_event = now - started
        kind, text = classify(frame)
        if kind == "error":
            raise RuntimeError(f"the run failed: {frame.data[:300]!r}")
        if kind == "output" and seen.first_output != seen.first_output:  # still NaN
            seen.first_output = now - started
        seen.text.append(text)
        seen.last_id = frame.id or seen.last_id
        if kind == "end":
            break
    seen.end = time.perf_counter() - started
    return seen


async def _follow_listener(listener: Response, classify: Classify, system: str) -> Followed:
    """Read an opened listener's stream to the run's end, then close it."""
    try:
        async with asyncio.timeout(_RUN_SECONDS):
            seen = await _follow(listener, classify, time.perf_counter())
    finally:
        listener.close()
    seen.check(system)
    return seen


def _runyard_frame(frame: Frame) -> tuple[str, str]:
    event = json.loads(frame.data)
    kind = event["type"]
    if kind == "text-delta":
        return "output", str(event["payload"]["text"])
    if kind == "tool-call":
        return "output", ""
    if kind == "run-finish":
        status = event["payload"]["status"]
        return ("end" if status == "completed" else "error"), ""
    return "other", ""


class RunyardClient:
    name = "runyard"

    def __init__(self, *ports: int) -> None:
        self._ports = itertools.cycle(ports)
        self._homes: dict[str, int] = {}
        self._cursors: dict[str, str] = {}

    async def new_thread(self) -> str:
        thread = f"race-{uuid.uuid4().hex}"  # made by its first message
        self._homes[thread] = next(self._ports)
        return thread

    async def run(self, thread: str, prompt: str = PROMPT) -> Followed:
        async with asyncio.timeout(_RUN_SECONDS):
            stream = await self._stream(thread)
            try:
                started = time.perf_counter()
                post = self._post(thread, prompt)
                _, seen = await asyncio.gather(post, _follow(stream, _runyard_frame, started))
            finally:
                stream.close()
        self._cursors[thread] = seen.last_id or "0"
        seen.check(self.name)
        return seen

    async def start_background(self, thread: str, prompt: str) -> str:
        return await self._post(thread, prompt)

    async def listen(self, thread: str, run: str) -> Response:
        return await self._stream(thread)

    async def follow(self, listener: Response) -> Followed:
        return await _follow_listener(listener, _runyard_frame, self.name)

    async def _stream(self, thread: str) -> Response:
        cursor = self._cursors.get(thread, "0")
        path = f"/v1/events/{thread}?lastEventId={cursor}"
        stream = await request(self._homes[thread], "GET", path)
        if stream.status != 200:
            stream.close()
            raise RuntimeError(f"GET /v1/events/{thread}: HTTP {stream.status}")
        return stream

    async def _post(self, thread: str, prompt: str) -> str:
        body = {"message": prompt, "agentId": "assistant"}
        answer = await json_call(self._homes[thread], "POST", f"/v1/chat/{thread}", body)
        return str(answer["runId"])


def _langgraph_frame(frame: Frame) -> tuple[str, str]:
    if frame.event == "error":
        return "error", ""
    if frame.event != "messages":
        return "other", ""
    message = json.loads(frame.data)[0]
    text = message["content"] if message["type"] == "AIMessageChunk" else ""
    return "output", text if isinstance(text, str) else ""


class LangGraphClient:
    name = "LangGraph Server"
    _MODES = ("messages-tuple",)

    def __init__(self, port: int) -> None:
        self.port = port

    async def new_thread(self) -> str:
        return str((await json_call(self.port, "POST", "/threads", {}))["thread_id"])

    async def run(self, thread: str, prompt: str = PROMPT) -> Followed:
        async with asyncio.timeout(_RUN_SECONDS):
            started = time.perf_counter()
            response = await request(
                self.port, "POST", f"/threads/{thread}/runs/stream", self._run_body(prompt)
            )
            try:
                if response.status != 200:
                    raise RuntimeError(f"runs/stream: HTTP {response.status}")
                seen = await _follow(response, _langgraph_frame, started)
            finally:
                response.close()
        seen.check(self.name)
        return seen

    async def start_background(self, thread: str, prompt: str) -> str:
        run = await json_call(self.port, "POST", f"/threads/{thread}/runs", self._run_body(prompt))
        return str(run["run_id"])

    async def listen(self, thread: str, run: str) -> Response:
        path = f"/threads/{thread}/runs/{run}/stream?stream_mode={self._MODES[0]}"
        response = await request(self.port, "GET", path)
        if response.status != 200:
            response.close()
            raise RuntimeError(f"join stream: HTTP {response.status}")
        return response

    async def follow(self, listener: Response) -> Followed:
        return await _follow_listener(listener, _langgraph_frame, self.name)

    def _run_body(self, prompt: str) -> dict[str, object]:
        return {
            "assistant_id": "agent",
            "input": {"messages": [{"role": "user", "content": prompt}]},
            "stream_mode": list(self._MODES),
        }
