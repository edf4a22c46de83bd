"""``python -m runyard.temporal``: the Temporal worker (docs/temporal.md)."""

from runyard.temporal.worker import main

main()
