"""Every run's ending stores its transcript in its snapshot, so a reader of a thread's messages
gets each finished run's transcript from the snapshots — what folding the run's events gives —
and reads only the log after them: the run in progress, or the runs that have no snapshot yet."""

from __future__ import annotations

from service_harness import OWNER, Service, key, service

from runyard.protocol import parse_event
from runyard.service import read_transcripts
from runyard.service.threads.transcript import TranscriptEntry, TranscriptFold

NOTE = '/tool save_note {"text": "buy milk"}'


async def chat(svc: Service, *messages: str) -> list[str]:
    run_ids = []
    for message in messages:
        run_ids.append(await svc.runs.start(OWNER, "t1", message))
        await svc.settle("t1")
    return run_ids


async def folded_from_the_log(svc: Service, run_id: str) -> list[TranscriptEntry]:
    fold = TranscriptFold()
    for stored in await svc.store.read_events(key("t1")):
        if stored.run_id == run_id:
            fold.apply(parse_event(stored.data), stored.id)
    return fold.entries()


async def test_each_ending_stores_the_runs_transcript(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        run_ids = await chat(svc, "hello", '/tool calculator {"expression": "2+3"}', "again")
        read = await read_transcripts(svc.store, key("t1"))
        expected = [await folded_from_the_log(svc, run_id) for run_id in run_ids]
        last = await svc.store.last_event_id(key("t1"))

    assert [run.run_id for run in read.runs] == run_ids
    assert [run.entries for run in read.runs] == expected
    assert (read.mark, read.log) == (last, [])
    kinds = [entry["kind"] for entry in expected[1]]
    assert (kinds[0], kinds[-1]) == ("start", "finish")
    assert {"call", "result", "text"} <= set(kinds)
    assert len(read.message_ids) == 3


async def test_a_position_reads_the_log_to_the_end_of_the_run_holding_it(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url) as svc:
        first, second, waiting = await chat(svc, "one", "two", NOTE)
        first_end, second_end = (
            s.last_event_id for s in await svc.store.read_run_snapshots(key("t1"))
        )
        inside = await read_transcripts(svc.store, key("t1"), first_end + 1)
        whole = await read_transcripts(svc.store, key("t1"))

    assert [run.run_id for run in inside.runs] == [first]
    assert [e.id for e in inside.log] == list(range(first_end + 1, second_end + 1))
    assert len(inside.message_ids) == 2  # the snapshots' runs: a stream folds on with them
    assert [run.run_id for run in whole.runs] == [first, second]
    assert {e.run_id for e in whole.log} == {waiting}  # waiting for its approval: no snapshot
