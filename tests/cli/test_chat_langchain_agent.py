"""``runyard chat`` against a LangChain agent of the catalog (``runtime: langchain``), served by
a real ``runyard serve`` process: the client works unchanged — the streamed reply, and an
approval answered at the prompt.

The catalog's one agent, on the offline demo model, is its default: ``runyard chat`` gets it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.slow

_URL = re.compile(r"serving (http://127\.0\.0\.1:\d+)")
_AGENT = """\
kind: agent
id: helper
model: runyard:demo
runtime: langchain
instructions: You help.
tools:
  - save_note
---
kind: routing
default_agent: helper
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    tmp_path = tmp_path_factory.mktemp("serve")
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "helper.yaml").write_text(_AGENT)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_CATALOG_DIR=str(tmp_path / "catalog"),
        RUNYARD_DATABASE_URL=f"sqlite:///{tmp_path / 'runyard.db'}",
        RUNYARD_REDIS_URL="",
        PYTHONUNBUFFERED="1",
    )
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
        assert process.stdout is not None
        banner = ""
        for line in process.stdout:
            banner += line
            if "Press Ctrl-C to stop." in line:
                break
        found = _URL.search(banner)
        assert found is not None, banner + (tmp_path / "serve.log").read_text()
        yield found.group(1), env
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert process.returncode == 0, (tmp_path / "serve.log").read_text()


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


def test_the_reply_streams(server: tuple[str, dict[str, str]]) -> None:
    done = _chat(server, "-m", "hi there")
    assert done.returncode == 0, done.stdout + done.stderr
    assert '💬 You said: "hi there"' in done.stdout


def test_an_approval_answered_at_the_prompt_runs_the_tool(
    server: tuple[str, dict[str, str]],
) -> None:
    done = _chat(server, "-m", '/tool save_note {"text": "x"}', stdin="y\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "approved" in done.stdout
    assert re.search(r'→ \{"id": "[^"]+", "text": "x"\}', done.stdout), done.stdout
