"""The event bus across replicas: Redis pub/sub on ``runyard:thread:<id>``, at-most-once.

One pub/sub connection per bus carries every thread this process listens to; its owner task
reconnects with backoff, re-subscribes, and then marks each subscription stale so its reader
re-reads the log — whatever was announced while the connection was down is found there. A
periodic PING detects a connection that died silently. While a subscription's channel is not
live (Redis unreachable, or its SUBSCRIBE not confirmed yet) it *polls*: its reader looks at the
log every ``poll_interval`` (see ``subscription``), so events keep flowing during an outage.

Publishing never waits for Redis: announcements go to an outbox (latest id per thread) that one
task sends in pipelined batches. A batch Redis refuses goes back to the outbox and is sent again
after a backoff, so the last announcement of a run is not lost to a subscriber that reconnected
before this publisher did. Failures are logged at a bounded rate (``outage``).

Control messages travel on ``runyard:control:<instance id>`` over the same connection; one sent
while the receiver's connection is down is lost, which only delays it (``interface.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from runyard.service.bus.control import ControlInboxes
from runyard.service.bus.interface import (
    ControlInbox,
    Delivery,
    EventBusClosedError,
    Subscription,
)
from runyard.service.bus.outage import OutageLog
from runyard.service.bus.subscription import Fanout

try:
    import redis.asyncio as aioredis
    from redis.asyncio.connection import AbstractConnection
    from redis.exceptions import RedisError
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("RedisEventBus needs the redis extra: pip install 'runyard[redis]'") from exc

__all__ = ["CHANNEL_PREFIX", "CONTROL_PREFIX", "RedisEventBus"]

CHANNEL_PREFIX = "runyard:thread:"
"""Thread ``T``'s wake-ups travel on channel ``runyard:thread:T``; each message is the id."""
CONTROL_PREFIX = "runyard:control:"
"""The control messages of the process with instance id ``I`` travel on ``runyard:control:I``."""

logger = logging.getLogger(__name__)

_LinkState = Literal["connecting", "up", "down"]
"""``connecting`` only until the first attempt ends; a failed or lost link is ``down`` until up."""

_FIRST_DELAY = 0.05
"""The first reconnect or re-publish delay, doubled at each failure up to the maximum."""


@dataclass
class _Link:
    """One live pub/sub connection and what has been asked of the server on it."""

    connection: AbstractConnection
    subscribed: set[str] = field(default_factory=set)  # SUBSCRIBE sent, no UNSUBSCRIBE since
    unconfirmed: Counter[str] = field(default_factory=Counter)  # SUBSCRIBE replies still due
    ping_due: bool = False  # the connection was quiet; a PING is (being) sent
    alive: bool = True


class RedisEventBus:
    """``EventBus`` over Redis pub/sub; this process's own subscribers are woken directly.

    ``subscribe`` returns once Redis confirmed the channel (or after ``confirm_timeout``, or at
    once while Redis is unreachable); a subscription polls every ``poll_interval`` seconds
    until its channel is confirmed, and is marked stale as soon as it is (again).
    ``command_timeout`` bounds each publish, so a Redis that stopped answering holds up nothing
    but the announcements, which wait in the outbox.
    """

    def __init__(
        self,
        url: str,
        *,
        ping_interval: float = 10.0,
        confirm_timeout: float = 5.0,
        connect_timeout: float = 2.0,
        max_reconnect_delay: float = 2.0,
        poll_interval: float = 1.0,
        command_timeout: float = 5.0,
        client_name: str | None = None,
    ) -> None:
        # RESP2: pub/sub messages arrive as plain replies on the connection we read. The pub/sub
        # reads pass their own timeout (the PING interval); command_timeout bounds the rest.
        self._pool = aioredis.ConnectionPool.from_url(
            url,
            protocol=2,
            socket_connect_timeout=connect_timeout,
            socket_timeout=command_timeout,
            client_name=client_name,
        )
        self._client = aioredis.Redis(connection_pool=self._pool)
        self._poll_interval = poll_interval
        self._ping_interval = ping_interval
        self._confirm_timeout = confirm_timeout
        self._max_reconnect_delay = max_reconnect_delay
        self._fanout = Fanout()
        self._inboxes = ControlInboxes()
        self._closed = False
        self._state: _LinkState = "connecting"
        self._link: _Link | None = None
        self._changed = asyncio.Event()  # replaced after each pulse; see _notify
        self._resync = asyncio.Event()  # the writer has something to send
        self._outbox: dict[str, int] = {}
        self._outbox_ready = asyncio.Event()
        self._closing = asyncio.Event()  # cuts a publish backoff short
        self._listener: asyncio.Task[None] | None = None
        self._publisher: asyncio.Task[None] | None = None
        self._link_outage = OutageLog(
            logger,
            "cannot connect",
            f"event streams poll the event log every {poll_interval:g}s until it answers",
            "live delivery resumes",
        )
        self._publish_outage = OutageLog(
            logger,
            "cannot publish wake-ups",
            "the events are stored; wake-ups wait here and other replicas poll the log",
            "the wake-ups held back are sent",
        )

    @property
    def delivery(self) -> Delivery:
        """``live`` while the pub/sub connection is up; ``polling`` before and after."""
        return "live" if self._state == "up" else "polling"

    async def connect(self, wait: float) -> Delivery:
        """Connect now rather than at first use, waiting up to ``wait`` seconds for Redis: the
        ``delivery`` that results. An unreachable Redis is retried in the background."""
        self._check_open()
        self._start_listening()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                while self._state == "connecting":
                    await self._changed.wait()
        return self.delivery

    async def publish(self, thread_id: str, event_id: int) -> None:
        """Wake this process's subscribers now and queue the announcement for Redis."""
        self._check_open()
        self._fanout.announce(thread_id, event_id)
        if event_id > self._outbox.get(thread_id, 0):
            self._outbox[thread_id] = event_id
        self._outbox_ready.set()
        if self._publisher is None:
            self._publisher = asyncio.create_task(self._publish_forever(), name="runyard-bus-pub")

    @asynccontextmanager
    async def subscribe(self, thread_id: str) -> AsyncIterator[Subscription]:
        """Wake-ups for ``thread_id`` from every replica while the context is open."""
        self._check_open()
        channel = CHANNEL_PREFIX + thread_id
        subscription = self._fanout.add(thread_id, poll_seconds=self._poll_interval)
        try:
            self._start_listening()
            self._resync.set()
            await self._until_settled(channel)
            if self._confirmed(channel):  # by an earlier subscriber of the thread, maybe
                subscription.go_live()
            # The reader has not read the log yet: nothing it could have missed.
            subscription.clear_stale()
            yield subscription
        finally:
            if self._fanout.remove(thread_id, subscription):
                self._resync.set()

    async def send_control(self, instance_id: str, message: str) -> None:
        """Publish ``message`` on the instance's control channel (bounded; a failure is logged)."""
        self._check_open()
        try:
            async with asyncio.timeout(self._confirm_timeout):
                await self._client.publish(CONTROL_PREFIX + instance_id, message)
        except (RedisError, OSError, TimeoutError) as exc:
            logger.warning("Redis event bus dropped a control message for %s: %r", instance_id, exc)

    @asynccontextmanager
    async def control(self, instance_id: str) -> AsyncIterator[ControlInbox]:
        """The messages sent to ``instance_id`` from every replica while the context is open."""
        self._check_open()
        inbox = self._inboxes.add(instance_id)
        try:
            self._start_listening()
            self._resync.set()
            await self._until_settled(CONTROL_PREFIX + instance_id)
            yield inbox
        finally:
            if self._inboxes.remove(instance_id, inbox):
                self._resync.set()

    async def close(self) -> None:
        """Send what is queued, stop both tasks, close the connections, wake every waiter."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._notify()
        self._outbox_ready.set()
        self._resync.set()
        if self._publisher is not None:
            await self._publisher
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        self._fanout.close()
        self._inboxes.close()
        await self._client.aclose()
        await self._pool.disconnect()

    def _check_open(self) -> None:
        if self._closed:
            raise EventBusClosedError("the event bus was closed")

    def _notify(self) -> None:
        """Wake everyone waiting for the link to change (see ``_until_settled``)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def _start_listening(self) -> None:
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen_forever(), name="runyard-bus-sub")

    def _confirmed(self, channel: str) -> bool:
        """Whether announcements on ``channel`` reach this process now."""
        link = self._link
        return link is not None and channel in link.subscribed and not link.unconfirmed[channel]

    async def _until_settled(self, channel: str) -> None:
        """Until the channel is confirmed, or known not to be soon (Redis down: it polls)."""
        try:
            async with asyncio.timeout(self._confirm_timeout):
                while not (self._closed or self._state == "down" or self._confirmed(channel)):
                    await self._changed.wait()
        except TimeoutError:
            logger.warning("Redis did not confirm %s in time; polling the log meanwhile", channel)

    def _link_down(self) -> None:
        """No announcement arrives any more: every subscription polls until re-confirmed."""
        if self._state != "down" and not self._closed:  # closing wakes readers for good instead
            self._fanout.go_polling(self._poll_interval)
        self._state = "down"
        self._notify()

    async def _listen_forever(self) -> None:
        delay = _FIRST_DELAY
        while not self._closed:
            try:
                connection = self._pool.connection_class(**self._pool.connection_kwargs)
                await connection.connect()  # type: ignore[no-untyped-call]  # unannotated upstream
            except (RedisError, OSError) as exc:
                self._link_down()
                self._link_outage.failed(exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._max_reconnect_delay)
                continue
            delay = _FIRST_DELAY
            self._link_outage.recovered()
            await self._serve(_Link(connection))

    async def _serve(self, link: _Link) -> None:
        """Read one connection (a writer task beside) until it fails; the caller reconnects.

        The writer stops by seeing ``link.alive`` turn false, not only by cancellation: a
        redis-py send interrupted at the wrong moment can swallow a ``CancelledError``.
        """
        self._link, self._state = link, "up"
        self._notify()
        self._resync.set()  # subscribe everything wanted on the new connection
        writer = asyncio.create_task(self._write(link), name="runyard-bus-write")
        try:
            await self._read(link)
        except Exception as exc:  # whatever broke the link, a fresh one is the remedy
            if not self._closed:
                logger.warning("Redis event bus lost its connection, reconnecting: %r", exc)
        finally:
            link.alive = False
            self._link = None
            self._link_down()
            self._resync.set()
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
            await link.connection.disconnect(nowait=True)

    async def _read(self, link: _Link) -> None:
        while not self._closed:
            reply = await link.connection.read_response(timeout=self._ping_interval)
            if reply is not None:
                link.ping_due = False
                self._dispatch(link, reply)
            elif link.ping_due:
                raise ConnectionError(f"Redis did not answer a PING in {self._ping_interval}s")
            else:  # quiet for a while: make sure the connection is still there
                link.ping_due = True
                self._resync.set()

    def _dispatch(self, link: _Link, reply: Any) -> None:
        if not isinstance(reply, list) or len(reply) != 3:
            return  # a PING reply
        kind, channel, data = reply
        name = channel.decode()
        if kind == b"message":
            self._deliver(name, data)
        elif kind == b"subscribe":
            link.unconfirmed[name] -= 1
            if link.unconfirmed[name] <= 0:
                del link.unconfirmed[name]
            if name.startswith(CHANNEL_PREFIX):
                self._fanout.go_live(name.removeprefix(CHANNEL_PREFIX))
            self._notify()

    def _deliver(self, channel: str, data: bytes) -> None:
        """Hand a message to the local subscribers of its thread, or inboxes of its instance."""
        if channel.startswith(CONTROL_PREFIX):
            self._inboxes.deliver(channel.removeprefix(CONTROL_PREFIX), data.decode())
            return
        try:
            self._fanout.announce(channel.removeprefix(CHANNEL_PREFIX), int(data))
        except ValueError:
            logger.warning("ignoring a malformed wake-up on %s: %r", channel, data)

    async def _write(self, link: _Link) -> None:
        try:
            while link.alive:
                await self._resync.wait()
                self._resync.clear()
                if link.alive:
                    await self._send_changes(link)
        except Exception as exc:
            # Closing the socket makes the reader fail too, and _serve reconnect.
            logger.warning("Redis event bus could not write, reconnecting: %r", exc)
            await link.connection.disconnect(nowait=True)

    async def _send_changes(self, link: _Link) -> None:
        wanted = {CHANNEL_PREFIX + thread_id for thread_id in self._fanout.threads()}
        wanted |= {CONTROL_PREFIX + instance for instance in self._inboxes.instances()}
        added, removed = wanted - link.subscribed, link.subscribed - wanted
        if added:
            link.subscribed |= added
            link.unconfirmed.update(added)
            await link.connection.send_command("SUBSCRIBE", *sorted(added))
        if removed:
            link.subscribed -= removed
            await link.connection.send_command("UNSUBSCRIBE", *sorted(removed))
        if link.ping_due:
            await link.connection.send_command("PING")

    async def _publish_forever(self) -> None:
        delay = _FIRST_DELAY
        while not (self._closed and not self._outbox):
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            batch, self._outbox = self._outbox, {}
            if not batch:
                continue
            if await self._send(batch):
                delay = _FIRST_DELAY
            elif not self._closed:  # a closing bus gives up what Redis would not take
                self._hold_back(batch)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._closing.wait()
                delay = min(delay * 2, self._max_reconnect_delay)

    def _hold_back(self, batch: dict[str, int]) -> None:
        """Put refused announcements back, under any newer ones, to be sent again."""
        for thread_id, event_id in batch.items():
            if event_id > self._outbox.get(thread_id, 0):
                self._outbox[thread_id] = event_id
        self._outbox_ready.set()

    async def _send(self, batch: dict[str, int]) -> bool:
        """Publish the batch; False when Redis did not take it."""
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for thread_id, event_id in batch.items():
                    pipe.publish(CHANNEL_PREFIX + thread_id, event_id)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            self._publish_outage.failed(exc)
            return False
        self._publish_outage.recovered()
        return True
