"""One run's life: the run a process drives (``ActiveRun``), the segment that streams its agent
into the event log, its durable journal and checkpoints, the one way it ends (``RunFinisher``),
the labels of its telemetry, and following it from outside."""
