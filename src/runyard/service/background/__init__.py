"""Background sub-agents: the tasks a run starts and waits for, and their status read back from
the event log."""
