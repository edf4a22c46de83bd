"""``python -m runyard`` is the ``runyard`` command."""

from runyard.cli import main

if __name__ == "__main__":
    main()
