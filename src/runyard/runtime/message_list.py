"""``AgentMessageList``: the one transcript of a run, with where each message came from.

One append-only list and three id sets: history (loaded from memory), input (this turn's user
messages) and response (what the run produced). ``turn_delta`` is what memory saves,
``response_delta`` is what the caller gets, ``for_llm`` is what the model sees.

Every live message gets ``created_at = max(hint, last + 1)`` so a thread reloaded with
``ORDER BY created_at`` has exactly the order the run saw; history keeps its stored timestamps.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from runyard.ids import now_ms
from runyard.messages import AgentMessage, AnyMessage, CustomMessage
from runyard.runtime.orphans import strip_orphaned_tool_messages

__all__ = ["AgentMessageList", "SerializedMessageList"]

Message = AgentMessage | CustomMessage


class SerializedMessageList(BaseModel):
    messages: list[AnyMessage] = Field(default_factory=list)
    history_ids: list[str] = Field(default_factory=list)
    input_ids: list[str] = Field(default_factory=list)
    response_ids: list[str] = Field(default_factory=list)


class AgentMessageList:
    def __init__(self) -> None:
        self._all: list[Message] = []
        self._history: set[str] = set()
        self._input: set[str] = set()
        self._response: set[str] = set()
        self._last_created_at = 0

    def __len__(self) -> int:
        return len(self._all)

    @property
    def all(self) -> list[Message]:
        return list(self._all)

    def add_history(self, messages: Iterable[Message]) -> None:
        """Add stored messages; they keep their timestamps and are sorted into place."""
        known = {m.id for m in self._all}
        added = False
        for message in messages:
            if message.id in known:
                continue
            self._history.add(message.id)
            self._all.append(message)
            self._last_created_at = max(self._last_created_at, message.created_at)
            added = True
        if added:
            self._sort()

    def add_input(self, messages: Iterable[Message]) -> list[Message]:
        return self._add_live(messages, self._input)

    def add_response(self, messages: Iterable[Message], *, fresh: bool = False) -> list[Message]:
        """Add what the run produced. ``fresh``: nobody else holds these messages yet, so one
        that needs a later ``created_at`` is restamped in place instead of copied (a copy per
        model call is measurable)."""
        return self._add_live(messages, self._response, fresh=fresh)

    def next_created_at(self) -> int:
        """The ``created_at`` the next live message gets if it is made now: a message made with
        it is added as it is, not copied to restamp it."""
        return max(now_ms(), self._last_created_at + 1)

    def turn_delta(self) -> list[Message]:
        """Input and response messages, in order: what memory saves."""
        return [m for m in self._all if m.id in self._input or m.id in self._response]

    def response_delta(self) -> list[Message]:
        """Response messages only, in order: what the caller gets."""
        return [m for m in self._all if m.id in self._response]

    def for_llm(self) -> list[AgentMessage]:
        """What the model sees: no custom rows, no unpaired tool calls or results."""
        paired = strip_orphaned_tool_messages(self._all)
        return [m for m in paired if isinstance(m, AgentMessage)]

    def serialize(self) -> SerializedMessageList:
        return SerializedMessageList(
            messages=list(self._all),
            history_ids=[m.id for m in self._all if m.id in self._history],
            input_ids=[m.id for m in self._all if m.id in self._input],
            response_ids=[m.id for m in self._all if m.id in self._response],
        )

    @classmethod
    def deserialize(cls, data: SerializedMessageList | dict[str, Any]) -> AgentMessageList:
        serialized = (
            data
            if isinstance(data, SerializedMessageList)
            else SerializedMessageList.model_validate(data)
        )
        restored = cls()
        restored._all = list(serialized.messages)
        restored._history = set(serialized.history_ids)
        restored._input = set(serialized.input_ids)
        restored._response = set(serialized.response_ids)
        restored._sort()
        return restored

    def _add_live(
        self, messages: Iterable[Message], provenance: set[str], *, fresh: bool = False
    ) -> list[Message]:
        added: list[Message] = []
        for message in messages:
            if message.id in self._history:
                # Stored before the run began (a service saves the user's message at once, so
                # a reload shows it): it is this turn's, at its stored place and time.
                self._history.discard(message.id)
                provenance.add(message.id)
                added.append(next(m for m in self._all if m.id == message.id))
                continue
            stamp = max(message.created_at or now_ms(), self._last_created_at + 1)
            if stamp != message.created_at:
                if fresh:
                    message.created_at = stamp
                else:
                    message = message.model_copy(update={"created_at": stamp})
            self._last_created_at = stamp
            provenance.add(message.id)
            self._all.append(message)
            added.append(message)
        return added

    def _sort(self) -> None:
        # Stable: messages stored with equal timestamps keep the order the store gave them.
        self._all.sort(key=lambda m: m.created_at)
        self._last_created_at = max((m.created_at for m in self._all), default=0)
