"""``runyard serve`` and ``runyard chat`` together, as separate processes on a real socket.

The server runs with the offline demo model on a temporary SQLite file and a free port (it
reports the port it got); each test drives ``runyard chat -m`` against it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pseudo_terminal import on_a_terminal
from serve_process import run_chat, serving

pytestmark = pytest.mark.slow


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_MODEL="runyard:demo",
        RUNYARD_DATABASE_URL=f"sqlite:///{tmp_path / 'runyard.db'}",
        RUNYARD_REDIS_URL="",
        RUNYARD_PORT="9",  # the --port flag must win over it
        PYTHONUNBUFFERED="1",
    )
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    tmp_path = tmp_path_factory.mktemp("serve")
    env = _env(tmp_path)
    with serving(tmp_path, env) as (url, banner):
        env["RUNYARD_TEST_BANNER"] = banner
        yield url, env


def _chat(
    server: tuple[str, dict[str, str]], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return run_chat(*server, *args, stdin=stdin)


def test_serve_reports_where_it_listens_and_that_it_uses_the_demo_model(
    server: tuple[str, dict[str, str]],
) -> None:
    url, env = server
    banner = env["RUNYARD_TEST_BANNER"]
    assert f"API docs   {url}/docs" in banner
    assert "SQLite file" in banner
    assert "runyard.db" in banner
    assert "event bus  in-process" in banner
    assert "assistant" in banner
    assert "save_note" in banner
    assert "offline demo model runyard:demo" in banner


def test_chat_one_message_shows_the_echoed_reply_and_exits_zero(
    server: tuple[str, dict[str, str]],
) -> None:
    done = _chat(server, "-m", "hi there")
    assert done.returncode == 0, done.stdout + done.stderr
    assert '💬 You said: "hi there"' in done.stdout
    assert "💭" in done.stdout


def test_an_approved_save_note_shows_its_result(server: tuple[str, dict[str, str]]) -> None:
    done = _chat(server, "-m", '/tool save_note {"text": "x"}', stdin="y\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "save_note" in done.stdout
    assert "approved" in done.stdout
    assert re.search(r'→ \{"id": "[^"]+", "text": "x"\}', done.stdout), done.stdout


def test_a_denied_save_note_shows_the_denial(server: tuple[str, dict[str, str]]) -> None:
    done = _chat(server, "-m", '/tool save_note {"text": "no"}', stdin="n\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "denied" in done.stdout
    assert "✗" in done.stdout


def test_the_same_thread_continues_without_replaying_earlier_runs(
    server: tuple[str, dict[str, str]],
) -> None:
    first = _chat(server, "thread-e2e", "-m", "first message")
    second = _chat(server, "thread-e2e", "-m", "second message")
    assert first.returncode == second.returncode == 0, first.stdout + second.stdout
    assert "first message" not in second.stdout
    assert '💬 You said: "second message"' in second.stdout


def test_ctrl_c_cancels_the_run_on_the_server(server: tuple[str, dict[str, str]]) -> None:
    url, env = server
    # 200 words, 300 ms each: the run outlasts any wait below, and Ctrl-C ends it early.
    words = " ".join(f"word{n}" for n in range(200))
    args = [sys.executable, "-m", "runyard", "chat", "t-cancel", "--url", url]
    with on_a_terminal([*args, "-m", f"/delay 300\n{words}"], env) as chat:
        # The live tree shows the reasoning streaming: the client follows the run, Ctrl-C is due.
        chat.wait_for("💭 The user said: 'word0")
        chat.interrupt()
        status = chat.exit_status()
    assert status == 130, chat.shown
    assert "run cancelled: user_cancelled" in chat.shown
    assert "⏹ cancelled (user_cancelled)" in chat.shown
    assert _until_idle(f"{url}/v1/threads/t-cancel/status")


def _until_idle(status_url: str, timeout: float = 30) -> bool:
    """Whether the thread reports no active run within ``timeout`` (its run row closes last)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not httpx.get(status_url).json()["hasActiveRun"]:
            return True
        time.sleep(0.05)
    return False
