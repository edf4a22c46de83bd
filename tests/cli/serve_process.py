"""A real ``runyard serve`` process on a free port, and ``runyard chat`` run against it."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_URL = re.compile(r"serving (http://127\.0\.0\.1:\d+)")


@contextmanager
def serving(folder: Path, env: dict[str, str]) -> Iterator[tuple[str, str]]:
    """``runyard serve --port 0`` in ``folder`` with ``env``: its URL and start-up report; on
    leaving, Ctrl-C, and it must stop cleanly (exit 0, "runyard stopped.")."""
    with (folder / "serve.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "runyard", "serve", "--port", "0"],
            env=env,
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    try:
        banner = _banner(process)
        found = _URL.search(banner)
        assert found is not None, banner + (folder / "serve.log").read_text()
        yield found.group(1), banner
    finally:
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    assert process.returncode == 0, (folder / "serve.log").read_text()
    assert "runyard stopped." in rest


def run_chat(
    url: str, env: dict[str, str], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """``runyard chat --url url *args``, answering its prompts with ``stdin``."""
    return subprocess.run(
        [sys.executable, "-m", "runyard", "chat", "--url", url, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _banner(process: subprocess.Popen[str]) -> str:
    """The start-up report, read line by line until its last line (or the end of output)."""
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if "Press Ctrl-C to stop." in line:
            break
    return "".join(lines)
