"""``runyard serve`` and ``runyard chat`` together, as separate processes on a real socket.

The server runs with the offline demo model on a temporary SQLite file and a free port (it
reports the port it got); each test drives ``runyard chat -m`` against it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pseudo_terminal import on_a_terminal

pytestmark = pytest.mark.slow

_URL = re.compile(r"serving (http://127\.0\.0\.1:\d+)")


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
    with (tmp_path / "serve.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "runyard", "serve", "--port", "0"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    try:
        banner = _banner(process)
        found = _URL.search(banner)
        assert found is not None, banner + (tmp_path / "serve.log").read_text()
        env["RUNYARD_TEST_BANNER"] = banner
        yield found.group(1), env
    finally:
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    assert process.returncode == 0, (tmp_path / "serve.log").read_text()
    assert "runyard stopped." in rest


def _banner(process: subprocess.Popen[str]) -> str:
    """The start-up report, read line by line until its last line (or the end of output)."""
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if "Press Ctrl-C to stop." in line:
            break
    return "".join(lines)


def _chat(
    server: tuple[str, dict[str, str]], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    url, env = server
    return subprocess.run(
        [sys.executable, "-m", "runyard", "chat", "--url", url, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


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
