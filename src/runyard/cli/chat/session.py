"""One conversation with a runyard server: send a message, follow its run to the end.

The driver is synchronous and runs a short event loop per stretch of network work, so the
confirmation prompts and Ctrl-C behave as in any terminal program: Ctrl-C while a run streams (or
while a prompt waits) asks the server to cancel the run, then follows it to its ``run-finish``;
a second Ctrl-C gives up waiting.
"""

from __future__ import annotations

import asyncio

from rich.console import Console

from runyard.cli.chat.answers import ConfirmationAsker
from runyard.cli.chat.client import ChatClient, Connection, ServerError
from runyard.cli.chat.feed import RetryPolicy
from runyard.cli.chat.run_view import RunView
from runyard.protocol import ConfirmationRequestEvent, RunFinishEvent, RunFinishPayload

__all__ = ["ChatSession"]

_Stop = RunFinishEvent | ConfirmationRequestEvent


class ChatSession:
    """Talks to one thread; keeps the event cursor between turns so no event is shown twice."""

    def __init__(
        self,
        connection: Connection,
        thread_id: str,
        console: Console,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.connection = connection
        self.thread_id = thread_id
        self._console = console
        self._asker = ConfirmationAsker(console)
        self._retry = retry
        self._cursor: int | None = None
        self._cursor_known = False

    def turn(self, message: str) -> RunFinishPayload:
        """Send ``message`` and show its run until ``run-finish``; how the run ended."""
        started: list[str] = []  # filled the moment the server answers, even if Ctrl-C follows
        interrupted = False
        try:
            asyncio.run(self._start(message, started))
        except KeyboardInterrupt:
            interrupted = True
        if not started:
            # Interrupted while the request was in flight: it may have started a run all the same.
            asyncio.run(self._cancel_thread())
            return RunFinishPayload(status="cancelled", reason="user_cancelled")
        with RunView(self._console) as view:
            if interrupted:
                return self._cancel(started[0], view)
            return self._follow_to_end(started[0], view)

    def _follow_to_end(self, run_id: str, view: RunView) -> RunFinishPayload:
        while True:
            try:
                stop = asyncio.run(self._follow(run_id, view, until_confirmation=True))
            except KeyboardInterrupt:
                return self._cancel(run_id, view)
            if isinstance(stop, RunFinishEvent):
                return stop.payload
            with view.paused():
                try:
                    answer = self._asker.ask(stop.payload)
                except KeyboardInterrupt:
                    answer = None
            if answer is None:
                return self._cancel(run_id, view)
            asyncio.run(self._confirm(stop.payload.request_id, answer, view))

    def _cancel(self, run_id: str, view: RunView) -> RunFinishPayload:
        view.note("Cancelling the run… (Ctrl-C again to stop waiting)")
        stop = asyncio.run(self._cancel_and_follow(run_id, view))
        assert isinstance(stop, RunFinishEvent)
        return stop.payload

    async def _start(self, message: str, started: list[str]) -> None:
        async with ChatClient(self.connection) as client:
            if not self._cursor_known:
                # Only what happens from now on: the thread's history was shown before, if at all.
                next_id = await client.next_event_id(self.thread_id)
                self._cursor = None if next_id is None else next_id - 1
                self._cursor_known = True
            started.append(await client.send(self.thread_id, message))

    async def _cancel_thread(self) -> None:
        async with ChatClient(self.connection) as client:
            await client.cancel(self.thread_id)

    async def _confirm(self, request_id: str, answer: dict[str, object], view: RunView) -> None:
        async with ChatClient(self.connection) as client:
            await client.confirm(request_id, answer)
        view.note("approved" if answer.get("approved") else "denied")

    async def _cancel_and_follow(self, run_id: str, view: RunView) -> _Stop:
        try:
            await self._cancel_thread()
        except ServerError as exc:
            # The run goes on (or ends by itself); keep showing it until its run-finish.
            view.note(f"The server did not cancel the run: {exc}")
        return await self._follow(run_id, view, until_confirmation=False)

    async def _follow(self, run_id: str, view: RunView, *, until_confirmation: bool) -> _Stop:
        """Apply the run's events until it finishes (or, if asked, until it asks the user)."""
        async with ChatClient(self.connection) as client:
            feed = client.events(
                self.thread_id,
                after=self._cursor,
                retry=self._retry,
                on_retry=lambda n, delay, why: view.note(
                    f"Event stream lost ({why}); reconnecting in {delay:.1f}s (attempt {n})"
                ),
            )
            events = feed.events()
            try:
                async for received in events:
                    self._cursor = received.id
                    event = received.event
                    if event.run_id != run_id:
                        continue
                    view.apply(event, received.id)
                    if isinstance(event, RunFinishEvent) or (
                        until_confirmation and isinstance(event, ConfirmationRequestEvent)
                    ):
                        return event
            finally:
                await events.aclose()
        raise AssertionError("the event feed ended without an error")  # feed.events() never ends
