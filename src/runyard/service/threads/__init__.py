"""The read side of threads: an owner's threads, their rich history folded from the event log,
and a thread's status."""
