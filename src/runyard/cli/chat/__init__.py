"""``runyard chat``: the terminal client — SSE parsing, reconnecting feed, live agent tree, prompts.

Import its modules by name (``runyard.cli.chat.command`` and the rest): this package imports none
of them, so that building the command line loads no HTTP client.
"""
