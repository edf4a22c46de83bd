"""The ``runyard`` command line: ``serve`` the service, ``chat`` with it, ``db upgrade`` its database,
``agents`` to check a catalog, ``route`` to see which agent a request gets, ``keys`` to manage
API keys.

Layer 8: it may import every other layer, and nothing imports it.
"""

from runyard.cli.app import app, main

__all__ = ["app", "main"]
