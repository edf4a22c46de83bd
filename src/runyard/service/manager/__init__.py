"""``RunManager``, the service's façade over runs, and the collaborators it is made of: admitting
a request (``RunOpener``), driving a run (``RunDriver``), answering and cancelling it
(``Confirmer``, ``Canceller``), keeping its lease (``LeaseKeeper``)."""
