"""``ObservationLog``: one thread's observations and cursor, and the observer and reflector steps.

Nothing here schedules or locks; ``ObservationalMemory`` decides when a step runs. The observer
either buffers (its result is returned, not written) or observes now; either way observations
reach the log with the cursor in one compare-and-set (``Store.advance_observations``), so when
two processes observe one thread only the first write lands and nothing is written twice. A
failed or empty observation writes nothing: every message stays raw and in the window.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from runyard.ids import new_id
from runyard.memory.observational.buffer import BufferedChunk
from runyard.memory.observational.config import ObservationalConfig
from runyard.memory.observational.log_format import ParsedLine, parse_log, render_lines
from runyard.memory.observational.prompts import (
    OBSERVER_INSTRUCTIONS,
    REFLECTOR_INSTRUCTIONS,
    observer_input,
    reflector_input,
)
from runyard.memory.observational.transcript import render_transcript
from runyard.messages import AgentMessage, CustomMessage
from runyard.models import ModelTurn, estimate_message_tokens, estimate_tokens
from runyard.runtime import AgentModel, MemoryScope
from runyard.storage import MessageCursor, Observation, ObservationCursor, Store

__all__ = ["LogSnapshot", "ObservationLog", "count_tokens"]

log = logging.getLogger(__name__)

Message = AgentMessage | CustomMessage
_TAIL = 20  # observations shown to the observer so it does not repeat them


def count_tokens(messages: Sequence[Message]) -> int:
    """Estimated tokens of the messages a model would see (UI-only rows cost nothing)."""
    return estimate_message_tokens([m for m in messages if isinstance(m, AgentMessage)])


@dataclass(frozen=True, slots=True)
class LogSnapshot:
    """The log and cursor as read at one moment, so prompt block and window agree."""

    observations: list[Observation]
    cursor: ObservationCursor | None

    @property
    def position(self) -> MessageCursor | None:
        """The cursor as a position in the thread's message order."""
        return _position(self.cursor)

    @property
    def replaces_history(self) -> bool:
        """True when the log stands in for the messages up to the cursor."""
        return self.cursor is not None and bool(self.observations)


class ObservationLog:
    """Reads and advances the observation log of threads in one store."""

    def __init__(self, store: Store, config: ObservationalConfig) -> None:
        self._store = store
        self.config = config

    async def snapshot(self, scope: MemoryScope) -> LogSnapshot:
        """The thread's observations and cursor.

        Two reads, cursor first: the cursor and the observations covering the messages up to it
        move together, so the log read after the cursor covers at least that far. (Read the
        other way round, a write landing in between gives a cursor past the observations read,
        and the messages in between would be neither raw nor observed.)
        """
        owner = _owner(scope)
        cursor = await self._store.get_observation_cursor(scope.thread_id, **owner)
        observations = await self._store.list_observations(scope.thread_id, **owner)
        return LogSnapshot(observations, cursor)

    async def unobserved(
        self, scope: MemoryScope, cursor: ObservationCursor | MessageCursor | None
    ) -> list[Message]:
        """The thread's messages after ``cursor`` (all of them without one)."""
        return await self._store.get_messages(
            scope.thread_id,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            after=_position(cursor),
        )

    async def buffer(
        self,
        scope: MemoryScope,
        model: AgentModel,
        after: MessageCursor | None,
        known: Sequence[Observation],
    ) -> BufferedChunk | None:
        """Observe the messages after ``after`` once they reach the buffer interval, leaving
        the newest ``retain_tokens`` of them; nothing is written. ``known`` are the observations
        already made (stored and buffered), shown to the observer so it does not repeat them.
        """
        messages = await self.unobserved(scope, after)
        chunk = _oldest_chunk(messages, self.config.retain_tokens)
        if not chunk or count_tokens(chunk) < self.config.buffer_tokens:
            return None
        entries = await self._observe_chunk(scope, model, chunk, known)
        if not entries:
            return None
        until = MessageCursor(chunk[-1].created_at, chunk[-1].id)
        return BufferedChunk(after, until, tuple(entries))

    async def activate(self, scope: MemoryScope, chain: Sequence[BufferedChunk]) -> bool:
        """Make buffered chunks part of the log: one compare-and-set from where they start.

        False when the cursor is no longer there (another writer got first); nothing is written.
        """
        if not chain:
            return False
        before = await self.snapshot(scope)
        observations = [o for chunk in chain for o in chunk.observations]
        return await self._advance(scope, before, observations, chain[0].after, chain[-1].until)

    async def observe(self, scope: MemoryScope, model: AgentModel) -> bool:
        """Compress the oldest unobserved messages now, leaving the newest ``retain_tokens``.

        Returns True when observations were stored and the cursor moved. Model errors propagate
        (the caller logs them); nothing has been written then.
        """
        before = await self.snapshot(scope)
        messages = await self.unobserved(scope, before.cursor)
        chunk = _oldest_chunk(messages, self.config.retain_tokens)
        if not chunk:
            return False
        entries = await self._observe_chunk(scope, model, chunk, before.observations)
        if not entries:
            return False
        until = MessageCursor(chunk[-1].created_at, chunk[-1].id)
        return await self._advance(scope, before, entries, _position(before.cursor), until)

    async def reflect(self, scope: MemoryScope, model: AgentModel) -> bool:
        """Condense the log when it passes the reflector threshold; True when it was replaced."""
        observations = (await self.snapshot(scope)).observations
        tokens = sum(_tokens(o) for o in observations)
        budget = self.config.reflector_observation_tokens
        if tokens <= budget:
            return False
        prompt = reflector_input(_now(), render_lines(observations), tokens, budget)
        turn = await _ask(model, REFLECTOR_INSTRUCTIONS, prompt)
        lines = parse_log(turn.message.text, observations[-1].created_at)
        if not lines:
            log.warning("reflector wrote no observations for thread %s", scope.thread_id)
            return False
        entries = _entries(scope, lines, observations[0].created_at, turn)
        # Replaces exactly what the reflector read: observations activated meanwhile stay, and
        # when another process condensed the same ones first, this result is dropped.
        return await self._store.condense_observations(
            scope.thread_id, entries, replaces=[o.id for o in observations], **_owner(scope)
        )

    async def _observe_chunk(
        self,
        scope: MemoryScope,
        model: AgentModel,
        chunk: Sequence[Message],
        known: Sequence[Observation],
    ) -> list[Observation]:
        prompt = observer_input(_now(), render_lines(known[-_TAIL:]), render_transcript(chunk))
        turn = await _ask(model, OBSERVER_INSTRUCTIONS, prompt)
        lines = parse_log(turn.message.text, chunk[-1].created_at)
        if not lines:
            log.warning("observer wrote no observations for thread %s", scope.thread_id)
            return []
        return _entries(scope, lines, chunk[-1].created_at, turn)

    async def _advance(
        self,
        scope: MemoryScope,
        before: LogSnapshot,
        observations: Sequence[Observation],
        expected: MessageCursor | None,
        until: MessageCursor,
    ) -> bool:
        # Stamped after the log's last entry so the rendered block only grows at its end.
        last = before.observations[-1].created_at if before.observations else -1
        stamped = _after(observations, last)
        return await self._store.advance_observations(
            scope.thread_id, stamped, cursor=until, expected=expected, **_owner(scope)
        )


def _position(cursor: ObservationCursor | MessageCursor | None) -> MessageCursor | None:
    if isinstance(cursor, ObservationCursor):
        return MessageCursor(cursor.message_created_at, cursor.message_id)
    return cursor


def _after(observations: Sequence[Observation], last_ms: int) -> list[Observation]:
    """The observations in order, each ``created_at`` at least one millisecond past the last."""
    stamped: list[Observation] = []
    for observation in observations:
        last_ms = max(observation.created_at, last_ms + 1)
        stamped.append(replace(observation, created_at=last_ms))
    return stamped


def _owner(scope: MemoryScope) -> dict[str, str]:
    return {"tenant_id": scope.tenant_id, "resource_id": scope.resource_id}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


async def _ask(model: AgentModel, instructions: str, prompt: str) -> ModelTurn:
    # Through the agent's middleware, as its turns: a PiiRedaction holds for what the observer
    # and the reflector read, and for the observations they write (runtime.agent_model).
    return await model.ask([AgentMessage.user(prompt)], instructions)


def _oldest_chunk(messages: Sequence[Message], retain_tokens: int) -> list[Message]:
    """The oldest messages to observe, leaving about ``retain_tokens`` of the newest raw.

    The raw part never starts with a tool result (its call would be observed away from it) and
    starts at a user message when one is available, so the model sees a whole exchange.
    """
    kept, cut = 0, len(messages)
    while cut > 0:
        cost = count_tokens([messages[cut - 1]])
        if kept + cost > retain_tokens:
            break
        kept, cut = kept + cost, cut - 1
    starts = [i for i in range(cut, len(messages)) if _starts_window(messages[i])]
    users = [i for i in starts if _is_user(messages[i])]
    cut = users[0] if users else starts[0] if starts else len(messages)
    return list(messages[:cut])


def _starts_window(message: Message) -> bool:
    return not (isinstance(message, AgentMessage) and message.role == "tool")


def _is_user(message: Message) -> bool:
    return isinstance(message, AgentMessage) and message.role == "user"


def _tokens(observation: Observation) -> int:
    return observation.tokens or estimate_tokens(observation.text)


def _entries(
    scope: MemoryScope, lines: Sequence[ParsedLine], first_ms: int, turn: ModelTurn
) -> list[Observation]:
    """Stored observations for parsed lines, ordered from ``first_ms`` one millisecond apart.

    Token counts are the estimate, scaled to the provider's count of the model's output when
    it reported one.
    """
    estimates = [max(1, estimate_tokens(line.text)) for line in lines]
    reported = turn.usage.output_tokens
    scale = reported / sum(estimates) if reported > 0 else 1.0
    entries: list[Observation] = []
    parent: str | None = None
    for index, (line, estimate) in enumerate(zip(lines, estimates, strict=True)):
        entry = Observation(
            id=new_id("obs"),
            thread_id=scope.thread_id,
            text=line.text,
            created_at=first_ms + index,
            tokens=max(1, round(estimate * scale)),
            marker=line.marker,
            parent_id=parent if line.child else None,
            metadata={"date": line.date, "time": line.time},
        )
        parent = parent if line.child else entry.id
        entries.append(entry)
    return entries
