"""The event log of every thread: persisted in the store, live within a process, replayable;
and the one mapping of a run's runtime chunks to the wire events it logs (``chunks``)."""

from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.service.event_log.log import EventLog
from runyard.service.event_log.reader import EventReader
from runyard.service.event_log.writer import EventLogWriteError, EventWriter

__all__ = [
    "EventLog",
    "EventLogWriteError",
    "EventReader",
    "EventWriter",
    "LiveEvent",
    "ThreadChannel",
]
