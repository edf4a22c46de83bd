"""The README's examples must keep working, offline: the quick start, and its key commands."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
from pathlib import Path

from runyard.config import Settings
from runyard.registry import load_catalog
from runyard.runtime import GenerateResult
from runyard.service import AgentRequest, CatalogAgents, Owner, catalog_tool_names
from runyard.service.api_keys import KeyIdentity, verify_api_key
from runyard.storage import Store, open_store, upgrade

ROOT = Path(__file__).resolve().parents[1]


def test_the_quickstart_runs_offline_and_shows_a_tool_call_an_approval_and_a_stream() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = done.stdout
    assert 'answer: add returned {"sum": 42.0}.' in out
    assert "waiting for approval: send_email" in out
    assert 'approved, answer: send_email returned {"status": "sent to ann@example.com"}.' in out
    assert 'You said: "Hello from the quick start"' in out
    assert "finished: stop" in out


def _readme_command_lines(program: str) -> list[str]:
    """The README's shell lines that run ``program`` (comments cut off)."""
    blocks = (ROOT / "README.md").read_text().split("```sh\n")[1:]
    lines = [line for block in blocks for line in block.split("```")[0].splitlines()]
    return [line.split("#")[0].strip() for line in lines if line.startswith(program)]


def test_the_readmes_key_commands_run_as_written_on_a_real_database(tmp_path: Path) -> None:
    commands = _readme_command_lines(".venv/bin/runyard keys create")
    assert commands, "the README shows how to create a key"
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    environment = {k: v for k, v in os.environ.items() if k != "RUNYARD_API_KEY"}
    environment["RUNYARD_DATABASE_URL"] = url
    tokens = []
    for command in commands:
        argv = [sys.executable, "-m", "runyard", *shlex.split(command)[1:]]
        done = subprocess.run(
            argv, env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, (command, done.stderr)
        tokens.append(done.stdout.strip())

    owners = [(key.tenant_id, key.user_id) for key in asyncio.run(_verified(url, tokens))]
    # A key without --tenant/--user acts for whom RUNYARD_AUTH=none served: the same threads.
    assert owners[0] == (Owner().tenant_id, Owner().user_id)
    assert owners[1:] == [("acme", "alice")]


async def _verified(url: str, tokens: list[str]) -> list[KeyIdentity]:
    store = await open_store(url)
    try:
        found = [await verify_api_key(store, token) for token in tokens]
    finally:
        await store.close()
    assert None not in found, tokens
    return [identity for identity in found if identity is not None]


async def test_the_example_langgraph_agents_run_offline_and_the_graph_asks_its_question(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    await upgrade(url)
    store = await open_store(url)
    try:
        researcher, (asked, painted) = await _examples_langgraph_runs(store)
    finally:
        await store.close()

    assert researcher == 'calculator returned {"result": 42}.'
    (question,) = asked.pending_suspend
    assert question.payload["message"] == "Which colour should the palette start from?"
    assert painted.text == "A palette around teal: pale teal, teal, deep teal."


async def _examples_langgraph_runs(store: Store) -> tuple[str, tuple[GenerateResult, ...]]:
    """What ``researcher`` (runtime: langchain) answers a calculator call with, and ``palette``'s
    (a graph: of its own) question and its answer to teal."""
    examples = ROOT / "examples" / "agents"
    load = load_catalog(examples, known_tools=catalog_tool_names())
    catalog = CatalogAgents(load, store, Settings(), source=str(examples))
    try:
        catalog.compile_all()
        researcher = await catalog.agent(
            "t", catalog.choose("t", "u", AgentRequest("researcher"), None)
        )
        palette = await catalog.agent("t", catalog.choose("t", "u", AgentRequest("palette"), None))
        calculated = await researcher.generate('/tool calculator {"expression": "6 * 7"}')
        asked = await palette.generate("a palette, please")
        (question,) = asked.pending_suspend
        painted = await palette.resume(
            "generate",
            {"approved": True, "userInput": "teal"},
            run_id=asked.run_id,
            tool_call_id=question.tool_call_id,
        )
    finally:
        await catalog.aclose()
    return calculated.text, (asked, painted)
