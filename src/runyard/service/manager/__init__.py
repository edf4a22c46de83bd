"""``RunManager``, the service's façade over runs, and the collaborators it is made of: admitting
a request, driving a run, answering and cancelling it, keeping its lease."""
