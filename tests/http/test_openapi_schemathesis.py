"""Schemathesis, every default check and phase (examples, coverage, fuzzing, stateful), against
the ASGI app on a SQLite file with the demo model: every response must be one the OpenAPI
document declares (status, content type, body schema), no input may give a 5xx, invalid input
must be refused and valid input accepted.

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

from pathlib import Path

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events

from runyard.config import Settings
from runyard.http import create_app

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"

# No NUL characters in generated strings: the API refuses them in any text by design
# (http.md, "Text"), which JSON Schema cannot say, so schema-valid data with one is no bug.
# Hypothesis draws constants from runyard's own source, so any change to the code reshuffles
# the examples; without this, whether a NUL lands in an accepted field was luck.
CONFIG = {"seed": 7, "generation": {"max-examples": 20, "database": "none", "allow-x00": False}}


def test_every_response_matches_the_openapi_document(tmp_path: Path) -> None:
    app = create_app(
        Settings(
            database_url=f"sqlite:///{tmp_path / 'runyard.db'}",
            model="runyard:demo",
            catalog_dir=str(EXAMPLES),  # the bundled catalog: routing and /v1/catalog are served
        ),
        sse_follow=False,
        titles=False,
        instance="schemathesis",
    )
    schema = schemathesis.openapi.from_asgi(
        "/openapi.json", app, config=SchemathesisConfig.from_dict(CONFIG)
    )
    problems: list[str] = []
    scenarios = 0
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, events.NonFatalError | events.FatalError):
            problems.append(
                f"{event.label}: {event.info.title}\n{event.info.message}"
                if isinstance(event, events.NonFatalError)
                else f"fatal: {event.exception!r}"
            )
        elif isinstance(event, events.ScenarioFinished):
            scenarios += 1
            problems += _failures(event)

    assert not problems, "\n\n".join(problems)
    assert scenarios > 20


def _failures(event: events.ScenarioFinished) -> list[str]:
    recorder = event.recorder
    return [
        f"{recorder.label} [{check.name}] {check.failure_info.failure.title}\n"
        f"{check.failure_info.failure.message}\n{check.failure_info.code_sample}"
        for checks in recorder.checks.values()
        for check in checks
        if check.failure_info is not None
    ]
