"""``runyard serve`` over a catalog it cannot serve: it exits 1 with each catalog error on a line
of its own, as the hot reload logs them, and no traceback (docs/catalog.md, "Errors")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from http_harness import free_port

pytestmark = pytest.mark.slow

BROKEN = """\
kind: agent
id: helper
model: runyard:demo
instruction: You help.
limits:
  max_iterations: 0
"""


def _serve(tmp_path: Path, catalog: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_DATABASE_URL=f"sqlite:///{tmp_path / 'runyard.db'}",
        RUNYARD_CATALOG_DIR=str(catalog),
        RUNYARD_MODEL="runyard:demo",
        RUNYARD_REDIS_URL="",
        RUNYARD_LOG_FORMAT="json",
    )
    command = [sys.executable, "-m", "runyard", "serve", "--port", str(free_port())]
    return subprocess.run(
        [*command, "--grpc-port", "0"], env=env, capture_output=True, text=True, timeout=180
    )


def test_a_catalog_with_no_agent_to_serve_stops_the_start_with_its_errors_not_a_traceback(
    tmp_path: Path,
) -> None:
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "helper.yaml").write_text(BROKEN)

    done = _serve(tmp_path, catalog)

    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output
    lines = [line.strip() for line in done.stderr.splitlines()]
    file = catalog / "helper.yaml"
    assert f"{file}:4: instruction: unknown field; did you mean `instructions`?" in lines
    assert f"{file}:6: limits.max_iterations: Input should be greater than or equal to 1" in lines
    assert "runyard: cannot start: the catalog has no agents to serve:" in lines


def test_a_catalog_directory_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    done = _serve(tmp_path, tmp_path / "nowhere")

    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"runyard: cannot start: RUNYARD_CATALOG_DIR: no catalog at {tmp_path / 'nowhere'}"
    )
