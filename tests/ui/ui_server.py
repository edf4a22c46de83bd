"""The app behind uvicorn on a free port, in a thread of its own (the browser tests drive
Playwright's sync API from the test's thread), and the agent the browser tests talk to.

The agent is the offline demo model with the default tools, one tool per kind of question a
confirmation can ask (questions, text, plan review, domain access) and one that answers with
structured JSON and its sources (``report``), so a test picks the flow with what it types:
``/tool survey {"topic": "paint"}``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app
from runyard.memory import Memory
from runyard.messages import CitationPart, JsonPart
from runyard.service.tools import calculator, delegate, list_notes, plan, save_note
from runyard.storage import Store
from runyard.tools import Suspend, ToolContext, tool

QUESTIONS = [
    {"id": "colour", "question": "Which colour?", "type": "single", "options": ["red", "blue"]},
    {"id": "rooms", "question": "Which rooms?", "type": "multi", "options": ["hall", "kitchen"]},
]


ANSWER = {"type": "object"}
"""Whatever the card sends: the tools return it, so a test sees what arrived."""


def _asking(payload: dict[str, Any]) -> Any:
    """A tool that suspends with ``payload`` and returns the answer it was resumed with."""

    async def ask(topic: str, ctx: ToolContext) -> Any:
        if ctx.resume_data is None:
            return Suspend(payload)
        return {"answer": ctx.resume_data}

    return ask


survey = tool(name="survey", description="Ask questions.", resume_schema=ANSWER)(
    _asking(
        {
            "inputType": "questions",
            "message": "A few questions",
            "introMessage": "Please answer",
            "questions": QUESTIONS,
        }
    )
)
ask_text = tool(name="ask_text", description="Ask for text.", resume_schema=ANSWER)(
    _asking({"inputType": "text", "message": "What should the note say?"})
)
review_plan = tool(name="review_plan", description="Ask to review a plan.", resume_schema=ANSWER)(
    _asking(
        {
            "inputType": "plan-review",
            "message": "Review the plan",
            "tasks": [
                {"id": "t1", "description": "Buy paint", "status": "pending"},
                {"id": "t2", "description": "Paint the hall", "status": "pending"},
            ],
        }
    )
)
fetch_page = tool(name="fetch_page", description="Ask to reach a host.", resume_schema=ANSWER)(
    _asking(
        {
            "message": "Reach example.com?",
            "domainAccess": {"url": "https://example.com/page", "host": "example.com"},
        }
    )
)


REPORT = {"city": "Oslo", "readings": [{"hour": 9, "celsius": -3.5}, {"hour": 12, "celsius": 1}]}
"""What ``report`` answers as a ``json`` block."""

SOURCES = [
    CitationPart(
        url="https://example.com/weather", title="Example weather", cited_text="-3.5 at 9"
    ),
    CitationPart(url="javascript:alert(1)", title="Not a link"),
]
"""Its citations: one a page may link to, one it must not."""


@tool(name="report", description="Report the weather as data, with its sources.")
async def report(city: str) -> list[Any]:
    return ["reported", JsonPart(data=REPORT), *SOURCES]


def agents(store: Store) -> Mapping[str, Agent]:
    tools = [
        calculator,
        list_notes,
        save_note,
        plan,
        delegate,
        survey,
        ask_text,
        review_plan,
        report,
    ]
    assistant = Agent(
        "assistant",
        "runyard:demo",
        tools=[*tools, fetch_page],
        memory=Memory(store, title_generation=True),
    )
    return {"assistant": assistant}


@contextmanager
def served(
    database_url: str,
    *,
    given: Callable[[Store], Mapping[str, Agent]] | None = agents,
    **settings: Any,
) -> Iterator[str]:
    """The app on a free loopback port until the block ends; its base URL. ``given=None``
    serves the catalog of the settings' ``catalog_dir`` instead of ``agents``."""
    config = Settings(database_url=database_url, model="runyard:demo", **settings)
    app = create_app(config, agents=given, sse_ping_seconds=5.0)
    # Event streams never end by themselves: a second after shutdown starts they are cut.
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
    # Bound here, so the port is known and nobody can take it in between.
    listener = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(
        target=lambda: asyncio.run(server.serve(sockets=[listener])), daemon=True
    )
    thread.start()
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        _wait_ready(base, thread)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


def _wait_ready(base: str, thread: threading.Thread) -> None:
    with httpx.Client(timeout=2) as client:
        for _ in range(600):
            if not thread.is_alive():
                raise RuntimeError("the server thread ended before it was ready")
            try:
                if client.get(f"{base}/readyz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            threading.Event().wait(0.05)  # uvicorn offers no readiness callback
    raise TimeoutError("the server did not become ready")
