"""A finished run leaves nothing behind: everything it held (its segment, events, folds, stream,
model calls) is freed as its last reference goes — no reference cycle waits for the collector's
full passes, which on a busy server come so seldom that memory grows between them (the soak with
faults saw ~350 KB a run waiting), and the agent's record of its ended runs (``get_state``)
keeps their state, not the service that drove them."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from service_harness import OWNER, service

from runyard.runtime.model_step import ModelStep
from runyard.service.runs.segment import RunSegment

TOOLS = '/tool calculator {"expression": "2+3*4"}'


@pytest.fixture
def collector_off() -> Iterator[None]:
    """Only reference counting frees anything meanwhile."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _alive(kind: type) -> int:
    return sum(type(o) is kind for o in gc.get_objects())


@pytest.mark.usefixtures("collector_off")
async def test_finished_runs_free_their_segment_and_model_steps_without_the_collector(
    sqlite_url: str,
) -> None:
    before = _alive(RunSegment), _alive(ModelStep)  # other tests' may live on, held elsewhere
    async with service(sqlite_url) as svc:
        for thread in ("t1", "t2", "t3"):
            await svc.runs.start(OWNER, thread, TOOLS)
            await svc.settle(thread)
        assert (_alive(RunSegment), _alive(ModelStep)) == before
