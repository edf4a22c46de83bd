"""Cold start: importing runyard, or running an agent from the SDK, loads none of the heavy
packages those paths do not use (docs/benchmarks.md, cold start).

Each check runs in a fresh interpreter, since this test process has imported them all already.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# mcp costs seconds and is needed only once an `mcp` tool is built; SQLAlchemy and alembic only
# once a database is opened; FastAPI and uvicorn only by `runyard serve`.
_HEAVY = ("mcp", "alembic", "sqlalchemy", "fastapi", "uvicorn")

_FIRST_RUN = """
import asyncio
from pydantic_ai import messages as pai
from pydantic_ai.models.function import FunctionModel
from runyard import Agent

async def respond(messages, info):
    return pai.ModelResponse(parts=[pai.TextPart("hello")])

assert asyncio.run(Agent("a", FunctionModel(respond)).generate("hi")).text == "hello"
"""


def _loaded_after(code: str) -> list[str]:
    """Which of ``_HEAVY`` a fresh interpreter has imported after running ``code``."""
    report = f"import json, sys; print(json.dumps([m for m in {_HEAVY!r} if m in sys.modules]))"
    finished = subprocess.run(
        [sys.executable, "-c", f"{code}\n{report}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    loaded: list[str] = json.loads(finished.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "code",
    ["import runyard", "from runyard import *", _FIRST_RUN],
    ids=["import runyard", "public names", "an agent's first run"],
)
def test_the_sdk_loads_no_heavy_package(code: str) -> None:
    assert _loaded_after(code) == []


def test_the_cli_loads_no_mcp_and_no_migrations() -> None:
    # The CLI module imports the server command (FastAPI, uvicorn) and the service (SQLAlchemy).
    assert [m for m in _loaded_after("import runyard.cli") if m in ("mcp", "alembic")] == []


def test_the_lazy_storage_names_still_resolve() -> None:
    loaded = _loaded_after("from runyard.storage import VectorMode, head_revision, open_store")
    assert "sqlalchemy" in loaded
