"""``HeldDeltas``: a thread's text and reasoning deltas redacted whole, although the model may
split a secret across them.

The event writer redacts each event, which misses a key streamed as ``sk-ab`` + ``c123…``. So
each agent's deltas pass the redactor's hold-back (``SecretRedactor.hold_back``): the last
``hold_chars`` characters of a channel wait until no secret can still grow across them. What is
held comes out, in stream order, before the agent's next event of any other kind (its other
channel's delta, a tool call, its completion), when its stream ends (``EventWriter.end_of_stream``),
before the run's ``run-finish``, and when the writer closes. Every agent of every run the thread serves goes through it, whoever built the
agent.

Most deltas are plain words that nothing can grow into a secret from
(``SecretRedactor.settled``): with nothing held before them, they pass as the very event given,
not rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable

from runyard.protocol import ReasoningDeltaEvent, RunFinishEvent, TextDeltaEvent, WireEvent
from runyard.redaction import HoldBack, SecretRedactor

__all__ = ["HeldDeltas"]

DeltaEvent = TextDeltaEvent | ReasoningDeltaEvent

_Agent = tuple[str, str]
"""(run id, agent id)."""

_Selector = Callable[[_Agent], bool]


class HeldDeltas:
    """Turns the events a writer is given into the events it queues (deltas rewritten)."""

    def __init__(self, redactor: SecretRedactor) -> None:
        self._redactor = redactor
        self._open: dict[_Agent, tuple[DeltaEvent, HoldBack]] = {}
        """Per agent, the channel streaming now: its last delta (the template of what is
        released) and its hold-back."""

    def take(self, event: WireEvent) -> list[WireEvent]:
        """What to queue for ``event``, in order (none while a delta is all held)."""
        agent = (event.run_id, event.agent_id)
        if not isinstance(event, TextDeltaEvent | ReasoningDeltaEvent):
            if isinstance(event, RunFinishEvent):
                return [*self.release(lambda held: held[0] == event.run_id), event]
            return [*self.release(lambda held: held == agent), event]
        released: list[WireEvent] = []
        current = self._open.get(agent)
        if current is not None and current[0].type != event.type:
            released = self.release(lambda held: held == agent)
            current = None
        hold_back = current[1] if current is not None else self._redactor.hold_back()
        self._open[agent] = (event, hold_back)
        text = hold_back.push(event.payload.text)
        return [*released, _with_text(event, text)] if text else released

    def release(self, which: _Selector = lambda held: True) -> list[WireEvent]:
        """Everything the selected agents hold (all by default), as deltas."""
        released: list[WireEvent] = []
        for agent in [held for held in self._open if which(held)]:
            last, hold_back = self._open.pop(agent)
            text = hold_back.flush()
            if text:
                released.append(_with_text(last, text))
        return released


def _with_text(event: DeltaEvent, text: str) -> DeltaEvent:
    if text == event.payload.text:
        return event
    payload = event.payload.model_copy(update={"text": text})
    return event.model_copy(update={"payload": payload})
