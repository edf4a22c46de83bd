"""Cold start: importing runyard, running an agent from the SDK, asking the CLI for help or
starting ``runyard serve`` on the embedded default loads none of the heavy packages those paths
do not use (docs/benchmarks.md, cold start).

Each check runs in a fresh interpreter, since this test process has imported them all already.
They assert which modules are loaded, never how long it took.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# mcp costs seconds and is needed only once an `mcp` tool is built; SQLAlchemy and alembic only
# once a database is opened; FastAPI, uvicorn, gRPC and Prometheus only by `runyard serve`;
# jsonschema only by a tool or agent that brings a JSON Schema.
_HEAVY = (
    "mcp",
    "alembic",
    "sqlalchemy",
    "fastapi",
    "uvicorn",
    "grpc",
    "prometheus_client",
    "jsonschema",
)
# What `import runyard` and `runyard --help` need none of either: the model layer and its
# dependencies (pydantic-ai, OpenTelemetry, rich, httpx), pydantic itself, and the settings (an
# agent's run reads none; `Memory`'s defaults do).
_SDK = ("pydantic_ai", "opentelemetry", "rich", "httpx", "pydantic", "pydantic_settings")

_FIRST_RUN = """
import asyncio
from pydantic_ai import messages as pai
from pydantic_ai.models.function import FunctionModel
from runyard import Agent

async def respond(messages, info):
    return pai.ModelResponse(parts=[pai.TextPart("hello")])

assert asyncio.run(Agent("a", FunctionModel(respond)).generate("hi")).text == "hello"
"""

_HELP = """
import runpy, sys
sys.argv = ["runyard", "--help"]
try:
    runpy.run_module("runyard", run_name="__main__")
except SystemExit as exit:
    assert exit.code == 0, exit.code
"""


def _loaded_after(code: str, watched: tuple[str, ...] = _HEAVY) -> list[str]:
    """Which of ``watched`` a fresh interpreter has imported after running ``code``."""
    report = f"import json, sys; print(json.dumps([m for m in {watched!r} if m in sys.modules]))"
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
    ["import runyard", "import runyard.cli", _HELP],
    ids=["import runyard", "import runyard.cli", "runyard --help"],
)
def test_importing_runyard_and_the_cli_help_load_no_model_layer(code: str) -> None:
    assert _loaded_after(code, _HEAVY + _SDK) == []


@pytest.mark.parametrize(
    ("code", "watched"),
    [("from runyard import *", _HEAVY), (_FIRST_RUN, (*_HEAVY, "pydantic_settings"))],
    ids=["public names", "an agent's first run"],
)
def test_the_sdk_loads_no_heavy_package(code: str, watched: tuple[str, ...]) -> None:
    assert _loaded_after(code, watched) == []


def test_the_public_names_resolve_on_first_use() -> None:
    loaded = _loaded_after("from runyard import Agent", ("pydantic_ai",))
    assert loaded == ["pydantic_ai"]


def test_the_lazy_storage_names_still_resolve() -> None:
    loaded = _loaded_after("from runyard.storage import VectorMode, head_revision, open_store")
    assert "sqlalchemy" in loaded


def test_the_http_app_loads_mcp_only_for_its_first_mcp_request() -> None:
    code = "from runyard.config import Settings\nfrom runyard.http import create_app\ncreate_app(Settings())"
    assert _loaded_after(code, ("mcp",)) == []


# What `runyard serve` on the embedded default (a new SQLite file, or one at the newest migration;
# no catalog, tracing off) loads before it is ready: none of alembic, SQLAlchemy's PostgreSQL
# dialect, the catalog's YAML and JSON Schema, the OpenTelemetry SDK or mcp.
_SERVE_DEFERRED = (
    "alembic",
    "sqlalchemy.dialects.postgresql",
    "yaml",
    "jsonschema",
    "opentelemetry.sdk",
    "mcp",
)

_SERVE_START = """
import asyncio
import runyard.cli.server
from runyard.config import Settings
from runyard.http import create_app

async def start_and_stop() -> None:
    app = create_app(Settings(database_url={url!r}, grpc_port=0))
    async with app.router.lifespan_context(app):
        assert app.state.runyard.parts is not None

asyncio.run(start_and_stop())
"""

_OLD_FILE = """
from sqlalchemy import create_engine
from runyard.storage.migrations import upgrade_to
with create_engine({url!r}).begin() as connection:
    upgrade_to(connection, "0008")
"""


def test_serve_on_a_new_or_migrated_sqlite_file_loads_nothing_it_does_not_use(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    assert _loaded_after(_SERVE_START.format(url=url), _SERVE_DEFERRED) == []  # a first start
    assert _loaded_after(_SERVE_START.format(url=url), _SERVE_DEFERRED) == []  # a restart
    old = f"sqlite:///{tmp_path / 'old.db'}"
    _loaded_after(_OLD_FILE.format(url=old), ())
    assert _loaded_after(_SERVE_START.format(url=old), ("alembic",)) == ["alembic"]  # migrated
