"""Who drives which run: leases and their heartbeat, taking a run over from a process that
stopped (the crash sweep, the takeover plan), cancels that reach another process, suspensions
that expire, and the queue that workers claim runs from."""
