"""A failure while a run starts (after its row is open, before anything drives it) closes the
row again: the thread is never left busy with nobody to finish it."""

from __future__ import annotations

from typing import Any

import pytest
from service_harness import OWNER, key, service


async def test_a_failure_while_starting_a_run_leaves_no_open_run(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def disk_full(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("disk full")

    async with service(db_url) as svc:
        saving = svc.store.save_messages
        monkeypatch.setattr(svc.store, "save_messages", disk_full)
        with pytest.raises(OSError, match="disk full"):
            await svc.runs.start(OWNER, "t1", "hello")
        monkeypatch.setattr(svc.store, "save_messages", saving)
        left_open = await svc.store.get_active_run(key("t1"))
        status = await svc.runs.status(OWNER, "t1")
        await svc.runs.start(OWNER, "t1", "hello again")
        await svc.settle("t1")
        types = await svc.types("t1")

    assert left_open is None
    assert not status.has_active_run
    assert (types[0], types[-1]) == ("run-start", "run-finish")
