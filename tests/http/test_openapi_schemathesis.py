"""Schemathesis, every default check and phase (examples, coverage, fuzzing, stateful), against
the ASGI app on a SQLite file with the demo model: every response must be one the OpenAPI
document declares (status, content type, body schema), no input may give a 5xx, invalid input
must be refused and valid input accepted. Twice: with ``RUNYARD_AUTH=none``, and with ``keys``
and a valid member key on every request (fewer examples: the routes are the same, what changes
is the document's security and the identity the key gives).

Schemathesis runs as its command line does (its engine), not through its pytest plugin, whose
lazy fixture loader does not work with this pytest; the engine also runs the coverage and
stateful phases. Examples per operation are bounded, so the run takes seconds.

The event stream never ends by itself and Schemathesis reads a response whole (or until a read
timeout), so this app runs with ``sse_follow=False``: a stream sends what the thread's log holds
and ends. The route, its cursor checks, its frames and headers are the real ones; only the wait
for live events is skipped — the live path is pinned by test_events_api.py, test_live_server.py
and test_shutdown.py.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events

from runyard.config import Settings
from runyard.http import create_app
from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store
from system.results import Results, title_of

pytestmark = [
    pytest.mark.slow,
    # Hypothesis warns when an example's repr is huge (a 300 kB body at full size): a remark on
    # the example, not on the response; as an error (the suite's default) it ended the
    # operation's run.
    pytest.mark.filterwarnings("ignore:Generating overly large repr"),
]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"

# No NUL characters in generated strings: the API refuses them in any text by design
# (http.md, "Text"), which JSON Schema cannot say, so schema-valid data with one is no bug.
# Hypothesis draws constants from runyard's own source, so any change to the code reshuffles
# the examples; without this, whether a NUL lands in an accepted field was luck.
# The faces take foreign protocols' bodies (AG-UI's RunAgentInput, useChat's, LangGraph's run
# request, OpenAI's chat
# completion request), whose JSON Schema cannot say what runyard needs of them: that the last
# message is the user's, with text (or answers approvals). A schema-valid body that breaks that is 422 naming the field, by design.
FACES_ACCEPT = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
# /mcp takes any JSON-RPC message, and what MCP needs beyond its shape (a session opened by
# `initialize`, an Accept listing both JSON and event streams) is JSON-RPC's 400 and HTTP's 406.
MCP_ACCEPT = [*FACES_ACCEPT, "400", "406"]
EXAMPLES_PER_OPERATION = int(os.environ.get("RUNYARD_SCHEMATHESIS_EXAMPLES", "20"))
"""Bounded in ``make test``; ``make test-system`` runs the full size."""
FULL_SIZE = 500
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
CONFIG: dict[str, Any] = {
    "seed": 7,
    "generation": {"max-examples": EXAMPLES_PER_OPERATION, "database": "none", "allow-x00": False},
    "operations": [
        {
            "include-path-regex": "^/(agui|ai-sdk|openai|langgraph)/",
            "checks": {"positive_data_acceptance": {"expected-statuses": FACES_ACCEPT}},
        },
        {
            "include-path-regex": "^/mcp$",
            "checks": {"positive_data_acceptance": {"expected-statuses": MCP_ACCEPT}},
        },
    ],
}


def test_every_response_matches_the_openapi_document(
    tmp_path: Path, figures: dict[str, Any]
) -> None:
    """(s) Schemathesis over the whole OpenAPI document, RUNYARD_AUTH=none: 0 failures"""
    settings = _settings(tmp_path)
    problems, statuses = _run(create_app(settings, **APP), CONFIG, figures)

    assert not problems, "\n\n".join(problems)
    assert len(statuses) > 20


def test_with_api_keys_every_response_matches_the_document_and_none_is_a_500(
    tmp_path: Path, figures: dict[str, Any]
) -> None:
    """(s') the same with RUNYARD_AUTH=keys and a member's key on every request: 0 failures"""
    settings = _settings(tmp_path, auth="keys")
    key = asyncio.run(_member_key(settings.database_url))
    config = {
        **CONFIG,
        "headers": {"Authorization": f"Bearer {key}"},
        "generation": {**CONFIG["generation"], "max-examples": max(1, EXAMPLES_PER_OPERATION // 4)},
    }
    problems, statuses = _run(create_app(settings, **APP), config, figures)

    assert not problems, "\n\n".join(problems)
    assert len(statuses) > 20
    assert statuses.count(200) > 10  # the key was accepted: the routes ran, not only a 401


APP: dict[str, Any] = {"sse_follow": False, "titles": False, "instance": "schemathesis"}


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'runyard.db'}",
        model="runyard:demo",
        catalog_dir=str(EXAMPLES),  # the bundled catalog: routing and /v1/catalog are served
        **overrides,
    )


async def _member_key(url: str) -> str:
    store = await open_store(url)
    try:
        issued = await issue_api_key(store, tenant_id="acme", user_id="alice")
    finally:
        await store.close()
    return issued.token


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """What the test's Schemathesis run saw (``_run`` fills it in). With
    ``RUNYARD_SYSTEM_RESULTS`` (``make test-system``) they join the fault harness's results file
    as a scenario, so docs/reliability.md shows them."""
    target = os.environ.get("RUNYARD_SYSTEM_RESULTS")
    seen: dict[str, Any] = {}
    started = time.monotonic()
    yield seen
    if not target or not seen:
        return
    results = Results()
    entry = results.scenario(request.node.name, title_of(request))
    entry.seconds = round(time.monotonic() - started, 1)
    entry.outcome = "passed" if seen["failures"] == 0 else "failed"
    entry.figures = seen
    results.write(Path(target), "full" if EXAMPLES_PER_OPERATION >= FULL_SIZE else "ci")


def _run(
    app: FastAPI, config: dict[str, Any], figures: dict[str, Any]
) -> tuple[list[str], list[int]]:
    """Every check that failed, and the status of every response; their counts into
    ``figures``."""
    schema = schemathesis.openapi.from_asgi(
        "/openapi.json", app, config=SchemathesisConfig.from_dict(config)
    )
    problems: list[str] = []
    statuses: list[int] = []
    operations: set[str] = set()
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, events.NonFatalError | events.FatalError):
            problems.append(
                f"{event.label}: {event.info.title}\n{event.info.message}"
                if isinstance(event, events.NonFatalError)
                else f"fatal: {event.exception!r}"
            )
        elif isinstance(event, events.ScenarioFinished):
            problems += _failures(event)
            if event.recorder.label.split(" ")[0] in METHODS:  # not a stateful phase's chain
                operations.add(event.recorder.label)
            statuses += [
                i.response.status_code
                for i in event.recorder.interactions.values()
                if i.response is not None
            ]
    figures.update(
        examples_per_operation=config["generation"]["max-examples"],
        operations=len(operations),
        requests=len(statuses),
        responses=dict(sorted(Counter(f"{s // 100}xx" for s in statuses).items())),
        failures=len(problems),
    )
    return problems, statuses


def _failures(event: events.ScenarioFinished) -> list[str]:
    recorder = event.recorder
    return [
        f"{recorder.label} [{check.name}] {check.failure_info.failure.title}\n"
        f"{check.failure_info.failure.message}\n{check.failure_info.code_sample}"
        for checks in recorder.checks.values()
        for check in checks
        if check.failure_info is not None
    ]
