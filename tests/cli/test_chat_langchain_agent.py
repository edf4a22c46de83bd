"""``runyard chat`` against a LangChain agent of the catalog (``runtime: langchain``), served by
a real ``runyard serve`` process: the client works unchanged — the streamed reply, and an
approval answered at the prompt.

The catalog's one agent, on the offline demo model, is its default: ``runyard chat`` gets it.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator

import pytest
from serve_process import run_chat, serving

pytestmark = pytest.mark.slow

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
    with serving(tmp_path, env) as (url, _):
        yield url, env


def _chat(
    server: tuple[str, dict[str, str]], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return run_chat(*server, *args, stdin=stdin)


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
